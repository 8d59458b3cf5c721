#!/usr/bin/env bash
# The issue-24 table: the agent (default sandbox on) against Crush on the same
# scripted steps, whole process, in one sitting: CPU per step, wall and peak
# RSS ratios at 40, 200 and 800 steps, and `agent version` against
# `crush --version`. The same method as ../shared/checks/24-step-cost:
#
#   scripts/bench/peer.sh            # from the repository root
#
# Steps (llm.py's mix "cycle"), four to a file: write bench/cK.txt, read it,
# edit it, run `echo K >> side.log`; each tool in its own dialect. Each run
# gets a fresh empty git workspace (one empty commit) and a fresh state
# directory; CPU is user + sys of the whole process tree (/usr/bin/time),
# per step = (median N-step run - median 0-step run) / N. Rounds alternate
# which tool goes first.
#
# Environment (all optional):
#   RUNS=3  STEPS_LIST="40 200 800"
#   AGENT_BIN  a built agent (default: go build -o /tmp/bench-agent . here)
#   CRUSH_BIN  a crush binary (default /tmp/agent-check-tools/crush); or
#   CRUSH_SRC  a checkout of github.com/charmbracelet/crush at 37f36e9, built
#              into CRUSH_BIN when that is missing
#   OUT=/tmp/bench-peer-DATE   rows, logs and the summary
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-3}
STEPS_LIST=${STEPS_LIST:-"40 200 800"}
CRUSH_BIN=${CRUSH_BIN:-/tmp/agent-check-tools/crush}
OUT=${OUT:-/tmp/bench-peer-$(date -u +%Y%m%dT%H%M%S)}
die() { echo "peer.sh: $*" >&2; exit 2; }
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed (apt-get install time)"
if [[ ! -x $CRUSH_BIN && -n "${CRUSH_SRC:-}" ]]; then
  mkdir -p "$(dirname "$CRUSH_BIN")"
  (cd "$CRUSH_SRC" && CGO_ENABLED=0 go build -o "$CRUSH_BIN" .) || die "building Crush from $CRUSH_SRC failed"
fi
[[ -x $CRUSH_BIN ]] || die "no Crush at CRUSH_BIN=$CRUSH_BIN: set it, or CRUSH_SRC to a checkout of charmbracelet/crush at 37f36e9"
if [[ -z "${AGENT_BIN:-}" ]]; then
  AGENT_BIN=/tmp/bench-agent
  (cd "$repo" && CGO_ENABLED=0 go build -o "$AGENT_BIN" .) || die "go build of the agent failed"
fi
mkdir -p "$OUT"
echo "peer.sh: output in $OUT" >&2
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), Linux $(uname -r)"
  echo "agent: $AGENT_BIN ($(cd "$repo" && git rev-parse --short HEAD 2>/dev/null)); crush: $CRUSH_BIN"
  echo "RUNS=$RUNS STEPS_LIST=$STEPS_LIST; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"

python3 "$here/llm.py" --portfile "$OUT/port" --log "$OUT/llm.log" &
srv=$!
trap 'kill "$srv" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s "$OUT/port" ]] && break; sleep 0.05; done
[[ -s "$OUT/port" ]] || die "the scripted server did not start"
port=$(cat "$OUT/port")

# one TOOL N ROUND -> "TOOL N wall_s cpu_s rss_kb"
one() {
  local t=$1 n=$2 r=$3 d=$OUT/runs/r$3-$1-$2
  local base=http://127.0.0.1:$port/r$r-$t-$n/$t/cycle/$n/v1
  rm -rf "$d" && mkdir -p "$d/ws" "$d/home" && chmod 700 "$d/home"
  git -C "$d/ws" init -q && git -C "$d/ws" -c user.name=b -c user.email=b@example.invalid commit -q --allow-empty -m init
  if [[ $t == crush ]]; then
    printf '{"providers":{"bench":{"type":"openai-compat","base_url":"%s","api_key":"bench","models":[{"id":"bench-model","name":"Bench","context_window":128000,"default_max_tokens":4000}]}},"models":{"large":{"provider":"bench","model":"bench-model"},"small":{"provider":"bench","model":"bench-model"}},"options":{"disable_metrics":true}}' "$base" >"$d/ws/crush.json"
    (cd "$d/ws" && HOME=$d/home CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1 CRUSH_DISABLE_DEFAULT_PROVIDERS=1 \
      timeout 600 /usr/bin/time -o "$d/time" -f "%e %U %S %M" "$CRUSH_BIN" run "Do the scripted bench steps." >"$d/out" 2>"$d/err") || die "$d failed"
  else
    (cd "$d/ws" && AGENT_HOME=$d/home OPENAI_BASE_URL=$base OPENAI_API_KEY=bench AGENT_MODEL=bench-model \
      timeout 600 /usr/bin/time -o "$d/time" -f "%e %U %S %M" "$AGENT_BIN" run --max-steps $((n + 5)) --approval full-auto "Do the scripted bench steps." >"$d/out" 2>"$d/err") || die "$d failed"
  fi
  if ((n > 0)); then
    local last=$((n / 4 - 1))
    [[ "$(cat "$d/ws/bench/c$last.txt" 2>/dev/null)" == "LINE $last" ]] || die "$t did not finish the $n-step work; see $d/err"
  fi
  echo "$t $n $(awk '{print $1, $2 + $3, $4}' "$d/time")"
  rm -rf "$d/ws" "$d/home"
}

for r in $(seq "$RUNS"); do
  order="crush agent"
  ((r % 2)) || order="agent crush"
  for n in 0 $STEPS_LIST; do for t in $order; do one "$t" "$n" "$r"; done; done
done | tee "$OUT/rows"
for _ in $(seq 7); do
  /usr/bin/time -a -o "$OUT/v-crush" -f "%e" "$CRUSH_BIN" --version >/dev/null
  /usr/bin/time -a -o "$OUT/v-agent" -f "%e" "$AGENT_BIN" version >/dev/null
done
python3 - "$OUT" "$STEPS_LIST" <<'PY' | tee "$OUT/summary.md"
import statistics as st, sys
d, steps = sys.argv[1], [int(x) for x in sys.argv[2].split()]
rows = [l.split() for l in open(f"{d}/rows")]
med = lambda t, n, i: st.median(float(r[2 + i]) for r in rows if r[0] == t and r[1] == str(n))
print("| steps | agent CPU/step | Crush CPU/step | CPU ratio (goal <= 0.5x) | wall ratio (goal <= 0.4x) | RSS ratio (goal <= 0.6x) |")
print("|---|---:|---:|---:|---:|---:|")
for n in steps:
    a, c = ((med(t, n, 1) - med(t, 0, 1)) / n * 1000 for t in ("agent", "crush"))
    print(f"| {n} | {a:.1f} ms | {c:.1f} ms | {a / c:.2f}x | {med('agent', n, 0) / med('crush', n, 0):.2f}x | {med('agent', n, 2) / med('crush', n, 2):.2f}x |")
va = st.median(float(x) for x in open(f"{d}/v-agent")); vc = st.median(float(x) for x in open(f"{d}/v-crush"))
print(f"\n`agent version` {va * 1000:.0f} ms against `crush --version` {vc * 1000:.0f} ms ({va / vc:.2f}x)")
PY
