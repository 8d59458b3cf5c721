#!/usr/bin/env bash
# bench-gitleaks.sh: gitleaks and `agent redact` over the same corpora, in one run.
#
# 1. Installs gitleaks ($GITLEAKS_VERSION, default v8.30.1) with `go install` into a
#    temporary GOBIN, from an empty directory: it is not a dependency of this module.
# 2. Builds agent from this checkout.
# 3. Writes the generated corpora (internal/redact TestWriteBenchCorpus: fresh random
#    secrets every run) and copies the Go standard library's non-test .go sources.
# 4. Runs both tools over the same files ($RUNS times each, the median is reported):
#    MB/s by wall clock and by CPU time (user+sys; gitleaks scans files in parallel),
#    the ratio, redactions per MB on the standard library, recall on the dense corpus.
#
# Usage: scripts/bench-gitleaks.sh            (prints a report; ~3 minutes on 2 cores)
#        KEEP=1 scripts/bench-gitleaks.sh     (keeps the work directory)
# Needs: go, python3, tar. Nothing is sent anywhere: gitleaks dir only reads.
set -euo pipefail

GITLEAKS_VERSION=${GITLEAKS_VERSION:-v8.30.1}
RUNS=${RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-gitleaks.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then echo "work directory: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/bin" "$work/home" "$work/empty" "$work/stdlib"

die() { echo "bench-gitleaks: $*" >&2; exit 1; }
for t in go python3 tar; do command -v "$t" >/dev/null || die "needs $t"; done

echo "== setup" >&2
(cd "$work/empty" && GOBIN="$work/bin" GOFLAGS= go install "github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION") ||
  die "go install github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION failed"
(cd "$root" && CGO_ENABLED=0 go build -o "$work/bin/agent" .) || die "go build agent failed"
(cd "$root" && REDACT_CORPUS_DIR="$work/gen" go test -count=1 -run '^TestWriteBenchCorpus$' ./internal/redact/ >/dev/null) ||
  die "writing the generated corpora failed"
src="$(go env GOROOT)/src"
(cd "$src" && find . -name testdata -prune -o -type f -name '*.go' ! -name '*_test.go' -print0 | sort -z |
  tar --null -T - -cf - | tar -xf - -C "$work/stdlib")
# The same bytes as one stream for agent redact, in the same order.
(cd "$work/stdlib" && find . -type f -print0 | sort -z | xargs -0 cat) >"$work/stdlib.cat"
(cd "$work/gen/dense" && find . -type f -print0 | sort -z | xargs -0 cat) >"$work/dense.cat"
mkdir -p "$work/mixed" && cp "$work/gen/mixed.txt" "$work/mixed/"

# The id list of gitleaks' own default configuration, for TestGitleaksRuleIDs.
cfg="$(go env GOMODCACHE)/github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION/config/gitleaks.toml"
if [ -f "$cfg" ]; then
  (cd "$root" && GITLEAKS_CONFIG="$cfg" go test -count=1 -run '^TestGitleaksRuleIDs$' ./internal/redact/ >/dev/null) &&
    ids="every rule id of $GITLEAKS_VERSION's config/gitleaks.toml ($(grep -c '^id = ' "$cfg")) is in the table (TestGitleaksRuleIDs)" ||
    ids="TestGitleaksRuleIDs FAILED against $cfg"
else
  ids="(gitleaks config not found in the module cache: rule ids not compared)"
fi

gl() { # corpus-dir report
  (cd "$work/empty" && "$work/bin/gitleaks" dir "$1" --no-banner --log-level error --exit-code 0 -f json -r "$2")
}
ag() { # input output
  (cd "$work/empty" && env -i PATH="$PATH" HOME="$work/home" AGENT_HOME="$work/home" "$work/bin/agent" redact "$1" >"$2")
}
# timed NAME CMD...: runs CMD $RUNS times; records "wall cpu" of each run in $work/NAME.times.
timed() {
  local name=$1 TIMEFORMAT='%R %U %S'; shift
  : >"$work/$name.times"
  for _ in $(seq "$RUNS"); do
    { time "$@" 2>&3; } 3>&2 2>"$work/$name.t"
    awk '{printf "%s %.2f\n", $1, $2+$3}' "$work/$name.t" >>"$work/$name.times"
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== standard library" >&2
timed gl-stdlib gl "$work/stdlib" "$work/gl-stdlib.json"
timed ag-stdlib ag "$work/stdlib.cat" "$work/ag-stdlib.out"
echo "== mixed corpus" >&2
timed gl-mixed gl "$work/mixed" "$work/gl-mixed.json"
timed ag-mixed ag "$work/gen/mixed.txt" "$work/ag-mixed.out"
echo "== dense corpus" >&2
timed gl-dense gl "$work/gen/dense" "$work/gl-dense.json"
timed ag-dense ag "$work/dense.cat" "$work/ag-dense.out"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work" "$GITLEAKS_VERSION" <<'PY'
import json, os, statistics, sys
from collections import defaultdict
work, version = sys.argv[1], sys.argv[2]

def size(p):
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs)
    return os.path.getsize(p)

def med(name):
    rows = [tuple(map(float, l.split())) for l in open(os.path.join(work, name + ".times"))]
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)

def findings(name):
    with open(os.path.join(work, name)) as f:
        return json.load(f) or []

print(f"| corpus | MB | gitleaks {version}: wall / CPU | agent redact: wall / CPU | ratio (wall, CPU) | redactions: gitleaks / agent |")
print("|---|---|---|---|---|---|")
for corpus, path in [("stdlib", "stdlib"), ("mixed", "gen/mixed.txt"), ("dense", "gen/dense")]:
    mb = size(os.path.join(work, path)) / 1e6
    gw, gc = med("gl-" + corpus)
    aw, ac = med("ag-" + corpus)
    gn = len(findings(f"gl-{corpus}.json"))
    an = open(os.path.join(work, f"ag-{corpus}.out"), errors="replace").read().count("[REDACTED:")
    print(f"| {corpus} | {mb:.1f} | {mb/gw:.1f} / {mb/gc:.1f} MB/s | {mb/aw:.1f} / {mb/ac:.1f} MB/s "
          f"| {gw/aw:.0f}×, {gc/ac:.0f}× | {gn} ({gn/mb:.2f}/MB) / {an} ({an/mb:.2f}/MB) |")

# Recall on the dense corpus: a needle counts for gitleaks when a finding's
# match holds it (or its secret is a part of it), for agent when it is gone.
ag_out = open(os.path.join(work, "ag-dense.out"), errors="replace").read()
gl = findings("gl-dense.json")
matches = [(f.get("Match") or "", f.get("Secret") or "") for f in gl]
by_kind = defaultdict(lambda: [0, 0, 0])
for line in open(os.path.join(work, "gen/dense.needles")):
    kind, needle = line.rstrip("\n").split("\t", 1)
    k = by_kind[kind]
    k[0] += 1
    if needle not in ag_out:
        k[2] += 1
    if any(needle in m or (len(s) >= 8 and s in needle) for m, s in matches):
        k[1] += 1
tot = [sum(v[i] for v in by_kind.values()) for i in range(3)]
print()
print(f"Dense corpus recall: gitleaks {tot[1]}/{tot[0]} = {100*tot[1]/tot[0]:.1f} %, agent redact {tot[2]}/{tot[0]} = {100*tot[2]/tot[0]:.1f} % "
      f"({len(by_kind)} kinds)")
low = sorted((100*v[1]/v[0], k) for k, v in by_kind.items() if v[1] < v[0])
print(f"kinds gitleaks misses at least once: {len(low)}; the lowest: " + ", ".join(f"{k} {p:.0f} %" for p, k in low[:12]))
ours = sorted((100*v[2]/v[0], k) for k, v in by_kind.items() if v[2] < v[0])
print("kinds agent redact misses at least once: " + (", ".join(f"{k} {p:.0f} %" for p, k in ours) or "none"))
PY
echo
echo "rule ids: $ids"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3-4)," \
  "gitleaks $GITLEAKS_VERSION, load $load_before -> $load_after, runs $RUNS (median)"
