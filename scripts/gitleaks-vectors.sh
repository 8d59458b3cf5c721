#!/usr/bin/env bash
# gitleaks-vectors.sh: gitleaks' own rule-test vectors, and how `internal/redact` does on them.
#
# Every rule of gitleaks' default configuration is built by a Go function in its
# cmd/generate/config/rules/ that lists true positives (tps: text the rule must flag, many with
# secrets generated afresh from the rule's pattern) and false positives (fps: text it must not),
# and hands both to utils.Validate. This script
# 1. downloads gitleaks ($GITLEAKS_VERSION, default v8.30.1) with `go mod download` (not a
#    dependency of this module) and copies its source to a work directory;
# 2. patches utils.Validate and utils.ValidateWithPaths to also write every vector, with the
#    secret gitleaks' rule finds in a tp, as JSON lines to $GITLEAKS_VECTORS_OUT;
# 3. runs gitleaks' config generator (which calls every rule function once);
#    For each fp it also records which rules of gitleaks' whole default configuration flag it:
#    some fps of one rule are tokens of another (cloudflare-api-key's fps are Cloudflare global
#    and Origin CA keys); those are left out of the false-positive share.
# 4. runs TestGitleaksVectors over the file: recall on the tps (the secret gitleaks' rule finds
#    is gone from Redact's output), the share of the remaining fps that Redact changes at all,
#    and per rule where either falls short.
#
# Usage: scripts/gitleaks-vectors.sh         (about 2 minutes on 2 cores, most of it building)
#        KEEP=1 scripts/gitleaks-vectors.sh  (keeps the work directory and the vectors file)
# Needs: go. Nothing is sent anywhere but the Go module proxy's download.
set -euo pipefail

GITLEAKS_VERSION=${GITLEAKS_VERSION:-v8.30.1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gitleaks-vectors.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then echo "work directory: $work" >&2; else trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT; fi
die() { echo "gitleaks-vectors: $*" >&2; exit 1; }

mkdir -p "$work/empty"
dir=$(cd "$work/empty" && GOFLAGS= go mod download -json "github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || die "go mod download github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION failed"
cp -r "$dir" "$work/gitleaks" && chmod -R u+w "$work/gitleaks"
v="$work/gitleaks/cmd/generate/config/utils/validate.go"
grep -q '^func Validate(rule config.Rule, truePositives \[\]string, falsePositives \[\]string) \*config.Rule {$' "$v" ||
  die "utils.Validate has changed shape in $GITLEAKS_VERSION: adapt the patch"
python3 - "$v" <<'PY' || die "patching utils.Validate failed"
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('import (\n', 'import (\n\t"encoding/json"\n\t"os"\n', 1)
s = s.replace('\td := createSingleRuleDetector(r)\n\tfor _, tp := range truePositives {\n',
              '\td := createSingleRuleDetector(r)\n\tdumpVectors(r, d, truePositives, falsePositives, nil)\n\tfor _, tp := range truePositives {\n', 1)
s = s.replace('\td := createSingleRuleDetector(r)\n\tfor path, tp := range truePositives {\n',
              '\td := createSingleRuleDetector(r)\n\tdumpPathVectors(r, d, truePositives, falsePositives)\n\tfor path, tp := range truePositives {\n', 1)
s += '''
type vector struct {
	Rule    string   `json:"rule"`
	TP      bool     `json:"tp"`
	Text    string   `json:"text"`
	Path    string   `json:"path,omitempty"`
	Secrets []string `json:"secrets,omitempty"`
	// FlaggedBy lists the rules of gitleaks' whole default configuration
	// that flag a false positive of this rule (a token of another kind).
	FlaggedBy []string `json:"flagged_by,omitempty"`
}

var fullDetector *detect.Detector

func dumpVectors(r *config.Rule, d *detect.Detector, tps, fps []string, paths map[string]string) {
	out := os.Getenv("GITLEAKS_VECTORS_OUT")
	if out == "" {
		return
	}
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, tp := range tps {
		v := vector{Rule: r.RuleID, TP: true, Text: tp, Path: paths[tp]}
		for _, fi := range d.DetectString(tp) {
			v.Secrets = append(v.Secrets, fi.Secret)
		}
		_ = enc.Encode(v)
	}
	if fullDetector == nil {
		if fullDetector, err = detect.NewDetectorDefaultConfig(); err != nil {
			panic(err)
		}
	}
	for _, fp := range fps {
		v := vector{Rule: r.RuleID, Text: fp, Path: paths[fp]}
		for _, fi := range fullDetector.DetectString(fp) {
			v.FlaggedBy = append(v.FlaggedBy, fi.RuleID)
		}
		_ = enc.Encode(v)
	}
}

func dumpPathVectors(r *config.Rule, d *detect.Detector, tps, fps map[string]string) {
	paths := map[string]string{}
	var t, f []string
	for p, s := range tps {
		t = append(t, s)
		paths[s] = p
	}
	for p, s := range fps {
		f = append(f, s)
		paths[s] = p
	}
	dumpVectors(r, d, t, f, paths)
}
'''
open(p, "w").write(s)
PY
out="$work/vectors.jsonl"
echo "== generating gitleaks $GITLEAKS_VERSION's rule vectors" >&2
(cd "$work/gitleaks/cmd/generate/config" && GOFLAGS=-mod=mod GITLEAKS_VECTORS_OUT="$out" go run . "$work/gitleaks.toml" >/dev/null) ||
  die "running gitleaks' config generator failed"
[ -s "$out" ] || die "no vectors written"
[ "${KEEP:-}" = 1 ] && echo "vectors: $out" >&2
echo "== TestGitleaksVectors" >&2
(cd "$root" && GITLEAKS_VECTORS="$out" go test -count=1 -run '^TestGitleaksVectors$' -v ./internal/redact/) |
  grep -v '^=== RUN\|^--- \|^PASS$\|^ok ' || true
echo "gitleaks $GITLEAKS_VERSION, $(wc -l <"$out") vectors; $(go version | cut -d' ' -f3-4)"
