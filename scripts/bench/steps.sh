#!/usr/bin/env bash
# Per-step CPU of the agent against Crush on the same scripted steps.
#
#   scripts/bench/steps.sh            # from the repository root
#
# One scripted OpenAI-compatible server (llm.py) replays the same STEPS tool
# steps to both tools, each in its own dialect: even steps write a ~1 kB file
# (bench/wNN.txt), odd steps run a command (mix "echo": `echo bench step K`,
# a builtin, which Crush's in-process shell interpreter runs without a
# process; mix "exec": `cat bench/wNN.txt`, an external program for both;
# mix "writes": every step writes, mix "echos": every step runs echo; mix
# "cycle": check 24's write, read, edit, command, four steps to a file).
# Each run gets a fresh copy of a git workspace of FILES committed files, a
# fresh state directory and a fresh config; its CPU (user and sys apart) is
# the child's rusage from wait4 (rusage.py), descendants included. A 0-step
# run (one model request, final answer) measures start-up; per step =
# (median N-step - median 0-step) / N. One warm-up round is not counted.
#
# Environment (all optional):
#   RUNS=5  STEPS=40  FILES=200  MIXES="echo exec"  TOOLS="agent crush"
#   AGE=2.5     seconds the copied workspaces age before a round runs (0: none)
#   TOOLS may also name agent-warm: the agent with a warm state directory, as
#               in a user's second run in a repository: before each measured
#               run, an unmeasured 1-step run (`true`) in the same workspace
#               and AGENT_HOME creates the shadow repository and stat cache,
#               so the first checkpoint does not store every file.
#   AGENT_VARIANTS="NAME=/path/to/agent ..."  other agent builds to measure in
#               the same sitting (e.g. a fix against its base): TOOLS may name
#               agent@NAME and agent-warm@NAME.
#   OUT=/tmp/bench-steps-DATE   where the runs, logs and summary go
#   AGENT_BIN   a built agent (default: go build -o /tmp/bench-agent . here)
#   CRUSH_BIN   a crush binary (default /tmp/peer-bin/crush); not installed here
#
# Loopback only: the server listens on 127.0.0.1 and both tools are pointed at
# it; Crush's provider auto-update and metrics are off.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-5}
STEPS=${STEPS:-40}
FILES=${FILES:-200}
AGE=${AGE:-2.5}
MIXES=${MIXES:-"echo exec"}
TOOLS=${TOOLS:-"agent crush"}
OUT=${OUT:-/tmp/bench-steps-$(date -u +%Y%m%dT%H%M%S)}

die() { echo "steps.sh: $*" >&2; exit 2; }
command -v python3 >/dev/null || die "python3 is needed (apt-get install python3)"
command -v git >/dev/null || die "git is needed (apt-get install git)"

# --- the tools -------------------------------------------------------------
declare -A variant=()
for v in ${AGENT_VARIANTS:-}; do
  [[ $v == *=* && -x ${v#*=} ]] || die "AGENT_VARIANTS: $v is not NAME=/path/to/an/executable"
  variant[${v%%=*}]=${v#*=}
done
for t in $TOOLS; do
  case $t in
  agent | agent-warm | crush) ;;
  agent@* | agent-warm@*) [[ -n "${variant[${t#*@}]:-}" ]] || die "TOOLS names $t but AGENT_VARIANTS has no ${t#*@}=PATH" ;;
  *) die "TOOLS: unknown tool $t (agent, agent-warm, agent@NAME, agent-warm@NAME, crush)" ;;
  esac
done
if [[ " $TOOLS " == *" agent "* || " $TOOLS " == *" agent-warm "* ]]; then
  if [[ -z "${AGENT_BIN:-}" ]]; then
    AGENT_BIN=/tmp/bench-agent
    (cd "$repo" && go build -o "$AGENT_BIN" .) || die "go build of the agent failed"
  fi
  [[ -x "$AGENT_BIN" ]] || die "AGENT_BIN=$AGENT_BIN is not an executable"
fi
if [[ " $TOOLS " == *" crush "* ]]; then
  # Crush is not installed by this script: the Go module proxy reachable here
  # refuses github.com/charmbracelet/crush (403) and its npm package downloads
  # its binary from GitHub at install time. Point CRUSH_BIN at a crush binary.
  CRUSH_BIN=${CRUSH_BIN:-/tmp/peer-bin/crush}
  [[ -x "$CRUSH_BIN" ]] || die "no crush binary at CRUSH_BIN=$CRUSH_BIN; set CRUSH_BIN to one, or run TOOLS=agent"
fi

mkdir -p "$OUT"
results=$OUT/results.jsonl
: >"$results"
echo "steps.sh: output in $OUT" >&2

# --- the workspace template: FILES committed files in 20 directories ---------
tpl=$OUT/template
rm -rf "$tpl"
python3 - "$tpl" "$FILES" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
os.makedirs(root, exist_ok=True)
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

# --- the server ----------------------------------------------------------------
python3 "$here/llm.py" --portfile "$OUT/port" --log "$OUT/llm.log" &
srv=$!
trap 'kill "$srv" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s "$OUT/port" ]] && break; sleep 0.05; done
[[ -s "$OUT/port" ]] || die "the scripted server did not start"
port=$(cat "$OUT/port")

prompt="Do the scripted bench steps."

# prep_one TOOL MIX N ROUND: a fresh workspace, state and config for one run.
prep_one() {
  local d=$OUT/runs/r$4-$1-$2-$3
  rm -rf "$d"
  mkdir -p "$d/home" "$d/config" "$d/data"
  cp -a "$tpl" "$d/ws"
}

# run_one TOOL MIX N ROUND: one run on its prepared workspace; ROUND 0 is the warm-up.
run_one() {
  local tool=$1 mix=$2 n=$3 round=$4
  local tag="r${round}-${tool}-${mix}-${n}"
  local d=$OUT/runs/$tag
  local base="http://127.0.0.1:$port/$tag/crush/$mix/$n/v1"
  local rec=$results
  [[ $round == 0 ]] && rec=$OUT/warmup.jsonl
  local meta=(--meta "tool=$tool" --meta "mix=$mix" --meta "steps=$n" --meta "run=$round" --meta "tag=$tag")
  case $tool in
  agent*)
    local bin=${AGENT_BIN:-}
    [[ $tool == *@* ]] && bin=${variant[${tool#*@}]}
    local agent_env=(env -i PATH="$PATH" HOME="$d/home" XDG_CONFIG_HOME="$d/config" AGENT_HOME="$d/state"
      OPENAI_API_KEY=bench AGENT_MODEL=bench-model)
    if [[ $tool == agent-warm* ]]; then
      "${agent_env[@]}" OPENAI_BASE_URL="http://127.0.0.1:$port/$tag-prime/agent/prime/1/v1" \
        timeout 300 "$bin" run -C "$d/ws" --approval full-auto "$prompt" >"$d/prime.out" 2>"$d/prime.err" ||
        die "$tag: the priming run failed; see $d/prime.err"
    fi
    "${agent_env[@]}" OPENAI_BASE_URL="http://127.0.0.1:$port/$tag/agent/$mix/$n/v1" \
      python3 "$here/rusage.py" --out "$rec" --stdout "$d/stdout" --stderr "$d/stderr" "${meta[@]}" -- \
      timeout 300 "$bin" run -C "$d/ws" --approval full-auto --max-steps $((n + 5)) "$prompt" >/dev/null || die "$tag failed; see $d/stderr"
    ;;
  crush)
    mkdir -p "$d/config/crush"
    cat >"$d/config/crush/crushrc" <<EOF
option provider-auto-update false
option metrics false
option auto-lsp false
option default-providers false
provider add bench --type openai-compat --base-url "$base" --api-key bench
model add bench/bench-model --name Bench --context-window 200000 --default-max-tokens 4000
model large bench/bench-model
model small bench/bench-model
EOF
    env -i PATH="$PATH" HOME="$d/home" XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data" \
      CRUSH_DISABLE_METRICS=1 CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1 DO_NOT_TRACK=1 \
      python3 "$here/rusage.py" --cwd "$d/ws" --out "$rec" --stdout "$d/stdout" --stderr "$d/stderr" "${meta[@]}" -- \
      timeout 300 "$CRUSH_BIN" run --quiet "$prompt" >/dev/null || die "$tag failed; see $d/stderr"
    ;;
  esac
  local want=$(((n + 1) / 2)) got pat='w*.txt'
  case $mix in writes) want=$n ;; echos) want=0 ;; cycle) want=$(((n + 3) / 4)) pat='c*.txt' ;; esac
  got=$(find "$d/ws/bench" -name "$pat" 2>/dev/null | wc -l || true)
  [[ $got -eq $want ]] || die "$tag: $got files written, want $want; see $d/stderr"
  # Nothing is deleted until the sitting ends: ext4 makes a new inode dear
  # for a while after many were deleted (ialloc's recently_deleted), and the
  # agent creates inodes (shadow objects, refs), so deleting one run's files
  # would tax the next run.
  return 0
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GB, Linux $(uname -r)"
  echo "go: $(go version 2>/dev/null || echo none)"
  echo "agent: ${AGENT_BIN:-} ($(cd "$repo" && git rev-parse --short HEAD 2>/dev/null))${AGENT_VARIANTS:+; variants: $AGENT_VARIANTS}"
  echo "crush: ${CRUSH_BIN:-} ($("${CRUSH_BIN:-true}" --version 2>/dev/null | head -1))"
  echo "RUNS=$RUNS STEPS=$STEPS FILES=$FILES AGE=$AGE MIXES=$MIXES TOOLS=$TOOLS"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"

for round in $(seq 0 "$RUNS"); do
  plan=()
  for mix in $MIXES; do
    # Alternate which tool goes first, so neither always follows the other.
    order=$TOOLS
    ((round % 2)) && order=$(echo "$TOOLS" | tr ' ' '\n' | tac | xargs)
    for tool in $order; do
      for n in 0 "$STEPS"; do
        plan+=("$tool $mix $n $round")
        prep_one $tool $mix $n $round
      done
    done
  done
  # A copied file's ctime is the moment of the copy: let every workspace age
  # past the checkpoint stat cache's racy window (2 s), as a real checkout has.
  sleep "$AGE"
  for p in "${plan[@]}"; do
    run_one $p
  done
  echo "steps.sh: round $round of $RUNS done" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
# Keep the workspaces and state of the last round only (disk).
for d in "$OUT"/runs/r*; do
  [[ $(basename "$d") == r"$RUNS"-* ]] || rm -rf "$d/ws" "$d/state" "$d/data"
done

cat "$OUT/machine.txt"
python3 "$here/summarize.py" "$results" "$OUT/llm.log" | tee "$OUT/summary.md"
