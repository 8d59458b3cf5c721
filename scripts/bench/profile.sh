#!/usr/bin/env bash
# Where the agent's per-step CPU goes: one scripted run under perf and one
# under strace, on the same steps as steps.sh.
#
#   scripts/bench/profile.sh            # from the repository root
#
# 1. perf record -g -e cpu-clock of an N-step run and of a 0-step run;
#    perfcat.py charges each sample to a component (checkpoint, SQLite, HTTP,
#    JSON, GC, bash children, ...) and kernel samples to their syscall, and
#    subtracts the 0-step run before dividing by N.
# 2. strace -f -ff -y -T of an N-step run; syscalls.py counts syscalls per
#    step by what they touched (workspace, shadow objects/refs/stat cache,
#    SQLite db/-wal/-shm, socket, bash).
#
# Environment (all optional): STEPS=40 FILES=200 MIX=echo WARM=0 (1: prime
# the state directory as steps.sh's agent-warm does) HZ=10000 PERF=1 STRACE=1
# TOOL=agent (or crush: the same run of CRUSH_BIN, default /tmp/peer-bin/crush,
# configured as steps.sh does; its state is WS/.crush)
# AGENT_BIN (default: go build -o /tmp/bench-agent . here) OUT=/tmp/bench-profile-DATE
# perf and strace come from Debian (apt-get install linux-perf strace); a
# missing one is skipped with a note.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
STEPS=${STEPS:-40}
FILES=${FILES:-200}
MIX=${MIX:-echo}
WARM=${WARM:-0}
HZ=${HZ:-10000}
PERF=${PERF:-1}
STRACE=${STRACE:-1}
TOOL=${TOOL:-agent}
CRUSH_BIN=${CRUSH_BIN:-/tmp/peer-bin/crush}
OUT=${OUT:-/tmp/bench-profile-$(date -u +%Y%m%dT%H%M%S)}
die() { echo "profile.sh: $*" >&2; exit 2; }
case $TOOL in
agent) ;;
crush) [[ -x $CRUSH_BIN ]] || die "CRUSH_BIN=$CRUSH_BIN is not an executable" ;;
*) die "TOOL must be agent or crush" ;;
esac
if [[ $TOOL == agent && -z "${AGENT_BIN:-}" ]]; then
  AGENT_BIN=/tmp/bench-agent
  (cd "$repo" && go build -o "$AGENT_BIN" .) || die "go build of the agent failed"
fi
mkdir -p "$OUT"

tpl=$OUT/template
rm -rf "$tpl"
python3 - "$tpl" "$FILES" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
for i in range(n):
    d = os.path.join(root, f"pkg{i % 20:02d}")
    os.makedirs(d, exist_ok=True)
    body = "".join(f"// line {j} {rng.random()}\n" for j in range(rng.randint(5, 40)))
    with open(os.path.join(d, f"file{i:04d}.go"), "w") as f:
        f.write(f"package pkg{i % 20:02d}\n\n" + body)
with open(os.path.join(root, ".gitignore"), "w") as f:
    f.write("*.o\n/build/\n.crush/\n")
EOF
git -C "$tpl" init -q
git -C "$tpl" add -A
git -C "$tpl" -c user.name=bench -c user.email=bench@example.invalid commit -qm fixture

python3 "$here/llm.py" --portfile "$OUT/port" --log "$OUT/llm.log" &
srv=$!
trap 'kill "$srv" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s "$OUT/port" ]] && break; sleep 0.05; done
[[ -s "$OUT/port" ]] || die "the scripted server did not start"
port=$(cat "$OUT/port")

# prep NAME: a fresh, aged workspace and state directory (primed if WARM=1).
prep() {
  local d=$OUT/$1
  rm -rf "$d"
  mkdir -p "$d/home"
  cp -a "$tpl" "$d/ws"
  sleep 2.5 # past the stat cache's racy window, as in steps.sh
  if [[ $WARM == 1 && $TOOL == agent ]]; then
    env -i PATH="$PATH" HOME="$d/home" AGENT_HOME="$d/state" OPENAI_API_KEY=bench AGENT_MODEL=bench-model \
      OPENAI_BASE_URL="http://127.0.0.1:$port/$1-prime/agent/prime/1/v1" \
      "$AGENT_BIN" run -C "$d/ws" --approval full-auto "prime" >/dev/null 2>&1 || die "$1: priming run failed"
  fi
}
# run NAME N CMD...: the tool under CMD (a profiler's argv prefix).
run() {
  local name=$1 n=$2 d=$OUT/$1
  shift 2
  if [[ $TOOL == crush ]]; then
    mkdir -p "$d/config/crush"
    cat >"$d/config/crush/crushrc" <<EOF
option provider-auto-update false
option metrics false
option auto-lsp false
option default-providers false
provider add bench --type openai-compat --base-url "http://127.0.0.1:$port/$name/crush/$MIX/$n/v1" --api-key bench
model add bench/bench-model --name Bench --context-window 200000 --default-max-tokens 4000
model large bench/bench-model
model small bench/bench-model
EOF
    (cd "$d/ws" && env -i PATH="$PATH" HOME="$d/home" XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data" \
      CRUSH_DISABLE_METRICS=1 CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1 DO_NOT_TRACK=1 \
      "$@" "$CRUSH_BIN" run --quiet "Do the scripted bench steps." >"$d/stdout" 2>"$d/stderr") || die "$name failed; see $d/stderr"
    return
  fi
  env -i PATH="$PATH" HOME="$d/home" AGENT_HOME="$d/state" OPENAI_API_KEY=bench AGENT_MODEL=bench-model \
    OPENAI_BASE_URL="http://127.0.0.1:$port/$name/agent/$MIX/$n/v1" \
    "$@" "$AGENT_BIN" run -C "$d/ws" --approval full-auto --max-steps $((n + 5)) "Do the scripted bench steps." \
    >"$d/stdout" 2>"$d/stderr" || die "$name failed; see $d/stderr"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "TOOL=$TOOL STEPS=$STEPS FILES=$FILES MIX=$MIX WARM=$WARM HZ=$HZ agent=${AGENT_BIN:-} ($(cd "$repo" && git rev-parse --short HEAD))"
} | tee "$OUT/profile.txt"

if [[ $PERF != 1 ]]; then
  echo "PERF=0: perf skipped" | tee -a "$OUT/profile.txt"
elif command -v perf >/dev/null && perf record -q -e cpu-clock -o /dev/null true 2>/dev/null; then
  prep perf0 && run perf0 0 perf record -q -F "$HZ" -g -e cpu-clock -o "$OUT/perf0.data" --
  prep perfN && run perfN "$STEPS" perf record -q -F "$HZ" -g -e cpu-clock -o "$OUT/perfN.data" --
  perf script -i "$OUT/perf0.data" -F comm,tid,ip,sym,dso 2>/dev/null | python3 "$here/perfcat.py" "$HZ" 1 --save >"$OUT/perf0.json"
  perf script -i "$OUT/perfN.data" -F comm,tid,ip,sym,dso 2>/dev/null >"$OUT/perfN.txt"
  { echo; echo "== perf: CPU per step (the 0-step run subtracted)"; python3 "$here/perfcat.py" "$HZ" "$STEPS" "$OUT/perf0.json" <"$OUT/perfN.txt"; } | tee -a "$OUT/profile.txt"
else
  echo "perf is missing or cannot sample here (apt-get install linux-perf); skipped" | tee -a "$OUT/profile.txt"
fi

state_of() { if [[ $TOOL == crush ]]; then echo "$OUT/$1/ws/.crush"; else echo "$OUT/$1/state"; fi; }
if [[ $STRACE != 1 ]]; then
  echo "STRACE=0: strace skipped" | tee -a "$OUT/profile.txt"
elif command -v strace >/dev/null; then
  prep strace && mkdir -p "$OUT/strace" && run strace "$STEPS" strace -f -ff -y -T -o "$OUT/strace/tr"
  { echo; echo "== strace: syscalls per step (start-up included)"; python3 "$here/syscalls.py" "$OUT/strace" "$STEPS" "$OUT/strace/ws" "$(state_of strace)"; } | tee -a "$OUT/profile.txt"
  # The per-step fsyncs, by file (what durability costs).
  { echo; echo "fsync/fdatasync calls in the whole run, by file:"
    cat "$OUT"/strace/tr.* | grep -E '^(fsync|fdatasync)\(' | sed -E 's/^([a-z]+)\([0-9]+<([^>]*)>.*/\1 \2/; s/[0-9a-f]{38}/OBJ/; s/\.tmp-[0-9]+/.tmp-N/; s/w[0-9]+\.txt/wN.txt/g' | sort | uniq -c | sort -rn; } | tee -a "$OUT/profile.txt"
  rm -rf "$OUT/strace"
else
  echo "strace is missing (apt-get install strace); skipped" | tee -a "$OUT/profile.txt"
fi
echo "profile.sh: report in $OUT/profile.txt" >&2
