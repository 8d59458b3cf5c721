#!/usr/bin/env bash
# The TUI as a whole process in a real terminal (tmux), against Crush on the
# same work in the same sitting.
#
#   scripts/bench/tui.sh              # from the repository root
#
# Scenarios (SCENARIOS, all by default):
#   start   time from exec to the first frame on screen: `agent` and `crush`
#           in a git repository of 22 files, fresh (new workspace copy, new
#           state directories) and warm (the same workspace and state as a
#           run before); RUNS runs each, after an uncounted warm-up round,
#           alternating which tool goes first. The frame is the first whose
#           output shows the composer's placeholder ("Ask, or /"; Crush's
#           "Ready!", "Ready...", "Ready?" or "Ready for instructions").
#           Also the harness's floor: /usr/bin/printf writing such a frame.
#   long    a session of 10,002 items on screen (1 prompt, TURNS=500 turns
#           of a markdown answer with CALLS=19 tool calls each: reads of a
#           12-line file and `echo` commands, then the final answer), built
#           once per tool through the tool itself (`agent run --approval
#           full-auto`, `crush run`) against the scripted server, then
#           reopened LONG_RUNS times in the TUI (`agent resume RUN_ID`,
#           `crush --continue`): the time to the frame showing the final
#           answer; PAGES PgUp presses, Home, PAGES PgDn, End, each sent when
#           the screen has settled after the one before (key to screen:
#           first_ms, settled_ms); the resident memory (VmRSS, VmHWM from
#           /proc) after scrolling. Crush needs Tab first to focus its chat.
#   stream  a prompt typed and sent in a fresh session; the server streams a
#           STREAM_TOKENS-token markdown answer at STREAM_TPS tokens/s in
#           4-character deltas; the process's CPU (every thread) and the
#           frames it writes while the answer streams (the stream's first
#           and last 0.5 s left out), STREAM_RUNS runs per tool; the screen
#           halfway through the stream tells whether text was shown as it
#           arrived.
#   idle    a fresh session left alone on its first screen: the process's
#           CPU (every thread, /proc/PID/stat utime + stime) over IDLE_SECS
#           seconds, from 2 s after the first frame; IDLE_RUNS runs per tool.
#   init    what the start costs before any terminal work: `agent version`
#           and `crush --version` as whole processes (scripts/bench/rusage.py,
#           RUNS each), and five runs of each with GODEBUG=inittrace=1: the
#           sum of the Go package initializers' wall time, and the largest.
#
# Environment (all optional):
#   IDLE_SECS=60 IDLE_RUNS=1
#   RUNS=20 LONG_RUNS=3 STREAM_RUNS=3 PAGES=30 TURNS=500 CALLS=19
#   STREAM_TPS=200 STREAM_TOKENS=1500 COLS=120 ROWS=40 TOOLS="agent crush"
#   LONG_CACHE=DIR  keep the built long sessions there and reuse them (the
#                   build takes ~2 min for the agent and ~12 for Crush)
#   OUT=/tmp/bench-tui-DATE   where the runs, logs and summary go
#   AGENT_BIN   a built agent (default: go build -o /tmp/tb-agent . here)
#   CRUSH_BIN   a crush binary (default /tmp/peer-bin/crush); not installed here
#
# Isolation as in steps.sh: each tool runs with exactly the environment
# given (env -i style: PATH, HOME, its state and config directories, TERM),
# its provider pointed at the loopback server (scripts/bench/tui/llm.py);
# Crush's provider auto-update and metrics are off. The relay
# (scripts/bench/tui/ptyrun.py) starts the tool under its own pty inside a
# tmux pane of COLS x ROWS and timestamps what the tool writes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-20}
LONG_RUNS=${LONG_RUNS:-3}
STREAM_RUNS=${STREAM_RUNS:-3}
PAGES=${PAGES:-30}
TURNS=${TURNS:-500}
CALLS=${CALLS:-19}
STREAM_TPS=${STREAM_TPS:-200}
STREAM_TOKENS=${STREAM_TOKENS:-1500}
COLS=${COLS:-120}
ROWS=${ROWS:-40}
TOOLS=${TOOLS:-"agent crush"}
SCENARIOS=${SCENARIOS:-"start long stream idle init"}
IDLE_SECS=${IDLE_SECS:-60}
IDLE_RUNS=${IDLE_RUNS:-1}
OUT=${OUT:-/tmp/bench-tui-$(date -u +%Y%m%dT%H%M%S)}

die() { echo "tui.sh: $*" >&2; exit 2; }
for c in python3 git tmux; do command -v $c >/dev/null || die "$c is needed (apt-get install $c)"; done
for t in $TOOLS; do [[ $t == agent || $t == crush ]] || die "TOOLS: unknown tool $t (agent, crush)"; done
for s in $SCENARIOS; do [[ $s == start || $s == long || $s == stream || $s == idle || $s == init ]] || die "SCENARIOS: unknown scenario $s (start, long, stream, idle, init)"; done
if [[ " $TOOLS " == *" agent "* ]]; then
  if [[ -z "${AGENT_BIN:-}" ]]; then
    AGENT_BIN=/tmp/tb-agent
    (cd "$repo" && go build -o "$AGENT_BIN" .) || die "go build of the agent failed"
  fi
  [[ -x "$AGENT_BIN" ]] || die "AGENT_BIN=$AGENT_BIN is not an executable"
fi
if [[ " $TOOLS " == *" crush "* ]]; then
  # Not installed here: the Go module proxy reachable from this machine
  # refuses github.com/charmbracelet/crush (see steps.sh).
  CRUSH_BIN=${CRUSH_BIN:-/tmp/peer-bin/crush}
  [[ -x "$CRUSH_BIN" ]] || die "no crush binary at CRUSH_BIN=$CRUSH_BIN; set CRUSH_BIN to one, or run TOOLS=agent"
fi

mkdir -p "$OUT/runs"
results=$OUT/results.jsonl
: >"$results"
echo "tui.sh: output in $OUT" >&2

# --- the workspace template: 20 text files, AGENTS.md (so Crush skips its
# "initialize this project?" dialog), .gitignore; one commit -----------------
tpl=$OUT/template
rm -rf "$tpl"
mkdir -p "$tpl"
python3 - "$tpl" <<'EOF'
import os, sys
root = sys.argv[1]
for i in range(20):
    with open(os.path.join(root, f"f{i:02d}.txt"), "w") as f:
        f.write("".join(f"file {i:02d} line {j}: the quick brown fox jumps over the lazy dog\n" for j in range(12)))
with open(os.path.join(root, "AGENTS.md"), "w") as f:
    f.write("# Notes\n\nA fixture for the TUI benchmarks.\n")
with open(os.path.join(root, ".gitignore"), "w") as f:
    f.write(".crush/\n")
EOF
git -C "$tpl" init -q
git -C "$tpl" add -A
git -C "$tpl" -c user.name=bench -c user.email=bench@example.invalid commit -qm fixture

# --- the server and the terminal ---------------------------------------------
python3 "$here/tui/llm.py" --portfile "$OUT/port" --log "$OUT/llm.log" &
srv=$!
sockdir=$(mktemp -d /tmp/tbt.XXXXXX) # tmux refuses long socket paths
sock=$sockdir/s
tmx() { tmux -S "$sock" "$@"; }
cleanup() {
  kill "$srv" 2>/dev/null || true
  tmux -S "$sock" kill-server 2>/dev/null || true
  rm -rf "$sockdir"
}
trap cleanup EXIT
for _ in $(seq 100); do [[ -s "$OUT/port" ]] && break; sleep 0.05; done
[[ -s "$OUT/port" ]] || die "the scripted server did not start"
port=$(cat "$OUT/port")
url() { echo "http://127.0.0.1:$port/$1/v1"; } # url TAG/DIALECT/MODE/A/B
tmx new-session -d -s keep -x "$COLS" -y "$ROWS" "sleep 1000000"

# envs TOOL DIR BASEURL: the tool's whole environment, as --env arguments.
envs() {
  local tool=$1 d=$2 base=$3
  local e=(PATH="$PATH" HOME="$d/home" XDG_CONFIG_HOME="$d/config" TERM=xterm-256color)
  case $tool in
  agent) e+=(AGENT_HOME="$d/state" OPENAI_BASE_URL="$base" OPENAI_API_KEY=bench AGENT_MODEL=bench-model) ;;
  crush)
    e+=(XDG_DATA_HOME="$d/data" CRUSH_DISABLE_METRICS=1 CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1 DO_NOT_TRACK=1)
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
    ;;
  esac
  local kv
  for kv in "${e[@]}"; do printf '%s\0' --env "$kv"; done
}

marker_start() {
  case $1 in
  agent) echo 'Ask,or/' ;;
  crush) echo 'Ready(forinstructions|!|\.\.\.|\?)' ;;
  *) echo 'Ask,or/' ;;
  esac
}

# pty NAME ARGS...: ptyrun.py ARGS in a new tmux session of COLS x ROWS,
# waited for; its JSON line goes to $results.
n_pty=0
pty() {
  local line
  n_pty=$((n_pty + 1))
  printf -v line '%q ' python3 "$here/tui/ptyrun.py" --out "$results" "$@"
  tmx new-session -d -s "p$n_pty" -x "$COLS" -y "$ROWS" "$line; tmux -S $sock wait-for -S p$n_pty-done"
  tmx wait-for "p$n_pty-done"
}

# fresh DIR: a new copy of the workspace and empty state directories.
fresh() {
  rm -rf "$1"
  mkdir -p "$1/home" "$1/config" "$1/data"
  cp -a "$tpl" "$1/ws"
}

# start_one TOOL DIR META...: one first-frame run.
start_one() {
  local tool=$1 d=$2
  shift 2
  local env=() cmd=()
  mapfile -d '' env < <(envs "$tool" "$d" "$(url "start/$tool/long/0/0")")
  case $tool in
  agent) cmd=("$AGENT_BIN") ;;
  crush) cmd=("$CRUSH_BIN") ;;
  floor) env=(--env PATH="$PATH"); cmd=(/usr/bin/printf '\033[?1049h\033[H Ask, or / \n') ;;
  esac
  local quit=()
  [[ $tool == agent ]] && quit=(--quit-keys 03,03)
  pty --marker "$(marker_start "$tool")" --cwd "$d/ws" --hold 0.3 --timeout 30 "${quit[@]}" \
    --meta scenario=start --meta tool="$tool" "$@" "${env[@]}" -- "${cmd[@]}"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GB, Linux $(uname -r)"
  echo "go: $(go version 2>/dev/null || echo none); tmux: $(tmux -V); python: $(python3 -V 2>&1)"
  echo "agent: ${AGENT_BIN:-} ($(cd "$repo" && git rev-parse --short HEAD 2>/dev/null))"
  echo "crush: ${CRUSH_BIN:-} ($("${CRUSH_BIN:-true}" --version 2>/dev/null | head -1))"
  echo "RUNS=$RUNS LONG_RUNS=$LONG_RUNS STREAM_RUNS=$STREAM_RUNS PAGES=$PAGES TURNS=$TURNS CALLS=$CALLS STREAM_TPS=$STREAM_TPS STREAM_TOKENS=$STREAM_TOKENS ${COLS}x$ROWS TOOLS=$TOOLS SCENARIOS=$SCENARIOS"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"

order_of() { # order_of ROUND: TOOLS, reversed on odd rounds
  if (($1 % 2)); then echo "$TOOLS" | tr ' ' '\n' | tac | xargs; else echo "$TOOLS"; fi
}

# --- start ------------------------------------------------------------------------
if [[ " $SCENARIOS " == *" start "* ]]; then
  for tool in $TOOLS; do
    fresh "$OUT/warm-$tool"
    start_one "$tool" "$OUT/warm-$tool" --meta state=warm --meta round=0 # makes the state warm
  done
  for round in $(seq 0 "$RUNS"); do
    for tool in $(order_of "$round") floor; do
      if [[ $tool == floor ]]; then
        fresh "$OUT/runs/floor"
        start_one floor "$OUT/runs/floor" --meta state=fresh --meta round="$round"
        continue
      fi
      d=$OUT/runs/start-r$round-$tool
      fresh "$d"
      start_one "$tool" "$d" --meta state=fresh --meta round="$round"
      start_one "$tool" "$OUT/warm-$tool" --meta state=warm --meta round="$round"
      rm -rf "$d"
    done
    echo "tui.sh: start: round $round of $RUNS done" >&2
  done
fi

# --- long ---------------------------------------------------------------------------
# build_long TOOL DIR: the long session, through the tool's own headless run.
build_long() {
  local tool=$1 d=$2 tag=long-$1-$TURNS-$CALLS-$RANDOM
  fresh "$d"
  local env=()
  mapfile -d '' env < <(envs "$tool" "$d" "$(url "$tag/$tool/long/$TURNS/$CALLS")")
  local kv plain=()
  for kv in "${env[@]}"; do [[ $kv == --env ]] || plain+=("$kv"); done
  echo "tui.sh: building the $tool session of $TURNS turns x $CALLS calls (minutes)…" >&2
  case $tool in
  agent)
    (cd "$d/ws" && env -i "${plain[@]}" timeout 3600 "$AGENT_BIN" run --approval full-auto --max-steps $((TURNS + 5)) \
      "Do the long bench session." >"$d/build.out" 2>"$d/build.err") || die "the agent's long run failed; see $d/build.err"
    head -1 "$d/build.err" | sed -n 's/^run: //p' >"$d/run_id"
    [[ -s $d/run_id ]] || die "no run id in $d/build.err"
    ;;
  crush)
    (cd "$d/ws" && env -i "${plain[@]}" timeout 3600 "$CRUSH_BIN" run --quiet "Do the long bench session." \
      >"$d/build.out" 2>"$d/build.err") || die "crush's long run failed; see $d/build.err"
    ;;
  esac
  # Every turn reached the model with every result of the turn before.
  python3 - "$OUT/llm.log" "$tag" "$TURNS" "$CALLS" <<'EOF' || die "the $tool session was not played whole; see $OUT/llm.log"
import json, sys
log, tag, turns, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
reqs = [r for r in map(json.loads, open(log)) if r.get("tag") == tag and "turn" in r and not r["aside"]]
last = max(reqs, key=lambda r: r["turn"])
# a tool that compacts its context (the agent past a few hundred turns)
# sends fewer results than it ran: the turn count is then what is checked
ok = last["turn"] == turns and (last["results"] == turns * calls or 0 < last["results"] < turns * calls)
print(f"{tag}: {len(reqs)} requests, the last at turn {last['turn']} with {last['results']} tool results", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
  touch "$d/ok"
}

if [[ " $SCENARIOS " == *" long "* ]]; then
  cache=${LONG_CACHE:-$OUT/long}/t${TURNS}c$CALLS
  mkdir -p "$cache"
  for tool in $TOOLS; do
    [[ -f $cache/$tool/ok ]] || build_long "$tool" "$cache/$tool"
  done
  python3 - "$OUT" "$PAGES" <<'EOF'
import json, sys
out, pages = sys.argv[1], int(sys.argv[2])
for tool, pre in (("agent", []), ("crush", [{"keys": "09", "name": "tab", "await": True}])):
    k = [{"delay": 0.5}] + pre
    k += [{"delay": 0.02, "keys": "1b5b357e", "name": "pgup", "await": True}] * pages
    k += [{"delay": 0.02, "keys": "1b5b48", "name": "home", "await": True}, {"delay": 0.3, "capture": "top"}]
    k += [{"delay": 0.02, "keys": "1b5b367e", "name": "pgdown", "await": True}] * pages
    k += [{"delay": 0.02, "keys": "1b5b46", "name": "end", "await": True}, {"delay": 0.3, "capture": "bottom"}]
    json.dump(k, open(f"{out}/keys-long-{tool}.json", "w"))
EOF
  for round in $(seq 1 "$LONG_RUNS"); do
    for tool in $(order_of "$round"); do
      d=$cache/$tool
      mapfile -d '' env < <(envs "$tool" "$d" "$(url "reopen/$tool/long/0/0")")
      case $tool in
      agent) cmd=("$AGENT_BIN" resume "$(cat "$d/run_id")") quit=(--quit-keys 03,03) ;;
      crush) cmd=("$CRUSH_BIN" --continue) quit=() ;;
      esac
      pty --marker "All${TURNS}turnsdone" --cwd "$d/ws" --keys "$OUT/keys-long-$tool.json" --hold 1 --timeout 120 "${quit[@]}" \
        --meta scenario=long --meta tool="$tool" --meta round="$round" --meta items=$((1 + TURNS * (1 + CALLS) + 1)) \
        "${env[@]}" -- "${cmd[@]}"
    done
    echo "tui.sh: long: round $round of $LONG_RUNS done" >&2
  done
fi

# --- stream -------------------------------------------------------------------------
if [[ " $SCENARIOS " == *" stream "* ]]; then
  python3 - "$OUT" "$STREAM_TOKENS" "$STREAM_TPS" <<'EOF'
import json, sys
out, tokens, tps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# The screen is captured halfway through the stream and after it.
k = [{"delay": 0.5}, {"keys": "Explain the flaky test.".encode().hex(), "name": "prompt"},
     {"delay": 0.3, "keys": "0d", "name": "enter"}, {"delay": tokens / tps / 2, "capture": "mid"},
     {"delay": tokens / tps / 2 + 2.5, "capture": "end"}]
json.dump(k, open(f"{out}/keys-stream.json", "w"))
EOF
  for round in $(seq 1 "$STREAM_RUNS"); do
    for tool in $(order_of "$round"); do
      d=$OUT/runs/stream-r$round-$tool
      fresh "$d"
      tag=stream-r$round-$tool
      mapfile -d '' env < <(envs "$tool" "$d" "$(url "$tag/$tool/stream/$STREAM_TPS/$STREAM_TOKENS")")
      case $tool in
      agent) cmd=("$AGENT_BIN") quit=(--quit-keys 03,03) ;;
      crush) cmd=("$CRUSH_BIN") quit=() ;;
      esac
      pty --marker "$(marker_start "$tool")" --cwd "$d/ws" --keys "$OUT/keys-stream.json" --hold 0.5 --timeout 30 "${quit[@]}" \
        --meta scenario=stream --meta tool="$tool" --meta round="$round" --meta tag="$tag" "${env[@]}" -- "${cmd[@]}"
    done
    echo "tui.sh: stream: round $round of $STREAM_RUNS done" >&2
  done
fi

# --- idle ---------------------------------------------------------------------------
# Both tools side by side (one tmux session each, started together), so
# that they idle under the same load.
if [[ " $SCENARIOS " == *" idle "* ]]; then
  echo '[{"delay": 2.0, "capture": "settled"}]' >"$OUT/keys-idle.json"
  for round in $(seq 1 "$IDLE_RUNS"); do
    waits=()
    for tool in $TOOLS; do
      d=$OUT/runs/idle-r$round-$tool
      fresh "$d"
      mapfile -d '' env < <(envs "$tool" "$d" "$(url "idle/$tool/long/0/0")")
      case $tool in
      agent) cmd=("$AGENT_BIN") quit=(--quit-keys 03,03) ;;
      crush) cmd=("$CRUSH_BIN") quit=() ;;
      esac
      n_pty=$((n_pty + 1))
      printf -v line '%q ' python3 "$here/tui/ptyrun.py" --out "$results" --marker "$(marker_start "$tool")" --cwd "$d/ws" \
        --keys "$OUT/keys-idle.json" --hold "$IDLE_SECS" --timeout 30 "${quit[@]}" \
        --meta scenario=idle --meta tool="$tool" --meta round="$round" --meta idle_s="$IDLE_SECS" "${env[@]}" -- "${cmd[@]}"
      tmx new-session -d -s "p$n_pty" -x "$COLS" -y "$ROWS" "$line; tmux -S $sock wait-for -S p$n_pty-done"
      waits+=("p$n_pty-done")
    done
    for w in "${waits[@]}"; do tmx wait-for "$w"; done
    echo "tui.sh: idle: round $round of $IDLE_RUNS done" >&2
  done
fi

# --- init ---------------------------------------------------------------------------
if [[ " $SCENARIOS " == *" init "* ]]; then
  for round in $(seq 0 "$RUNS"); do
    for tool in $(order_of "$round"); do
      case $tool in
      agent) cmd=("$AGENT_BIN" version) ;;
      crush) cmd=("$CRUSH_BIN" --version) ;;
      esac
      env -i PATH="$PATH" HOME="$OUT/runs" python3 "$here/rusage.py" --out "$results" --meta scenario=init --meta tool="$tool" \
        --meta round="$round" -- "${cmd[@]}" >/dev/null
    done
  done
  for i in 1 2 3 4 5; do
   for tool in $TOOLS; do
    case $tool in
    agent) cmd=("$AGENT_BIN" version) ;;
    crush) cmd=("$CRUSH_BIN" --version) ;;
    esac
    env -i PATH="$PATH" HOME="$OUT/runs" GODEBUG=inittrace=1 "${cmd[@]}" >/dev/null 2>"$OUT/inittrace-$tool.txt" || true
    python3 - "$OUT/inittrace-$tool.txt" "$tool" "$results" <<'EOF'
import json, re, sys
rows = re.findall(r"init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock", open(sys.argv[1]).read())
top = sorted(rows, key=lambda r: -float(r[2]))[:6]
rec = {"scenario": "inittrace", "tool": sys.argv[2], "packages": len(rows),
       "sum_ms": round(sum(float(r[2]) for r in rows), 1),
       "end_ms": round(max((float(r[1]) + float(r[2]) for r in rows), default=0), 1),
       "top": [[r[0], float(r[2])] for r in top]}
open(sys.argv[3], "a").write(json.dumps(rec) + "\n")
EOF
   done
  done
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
cat "$OUT/machine.txt"
python3 "$here/tui/summarize.py" "$results" "$OUT/llm.log" | tee "$OUT/summary.md"
