package demo

import (
	"encoding/json"
	"os"

	"agent/internal/replay"
)

// demoModel is the model name the stand-in answers to.
const demoModel = "scripted-demo"

// gateEnv names the release gate's path in the blocking command's
// environment.
const gateEnv = "AGENT_DEMO_GATE"

// The prompts and the rules of the two runs.
const (
	editPrompt  = "Make the greeting friendlier, then run the check"
	checkRule   = "run_command(sh check.sh)"
	crashPrompt = "Deploy the app"
	deployRule  = "run_command(sh deploy.sh)"
	// editCall and deployCall are the call ids the stand-in gives.
	editCall   = "call_edit"
	checkCall  = "call_check"
	deployCall = "call_deploy"
)

// Cues: text the stand-in's answers put on screen, without spaces (the TUI
// form watches the terminal output for them).
const (
	cueEditDone  = "Greetingupdated"
	cueRecovered = "Recoveredafterthecrash"
)

// wholeChunk streams a turn's text in one chunk: a cue the TUI form waits
// for is then written to the terminal whole, not cell by cell as it grows.
const wholeChunk = 4096

type file struct {
	name string
	body string
	mode os.FileMode
}

// fixture is the throwaway repository.
func fixture() []file {
	return []file{
		{"README.md", "# greeter\n\nA tiny program the agent demo works on. `sh check.sh` checks it; `sh deploy.sh` ships it.\n", 0o644},
		{"go.mod", "module greeter\n\ngo 1.22\n", 0o644},
		{"main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello\")\n}\n", 0o644},
		{"check.sh", `#!/bin/sh
# The project's check: the greeting must be friendly.
if grep -q 'Hello, world' main.go; then
	echo "check: the greeting is friendly"
else
	echo "check: main.go still says a bare Hello"
	exit 1
fi
`, 0o755},
		{"deploy.sh", `#!/bin/sh
# A pretend deploy with a side effect: every run appends a line to deploy.log.
# Then it waits for a release gate that the demo never opens, so it is still
# running when the demo kills the agent.
echo "deployed greeter" >> deploy.log
cat "$` + gateEnv + `" > /dev/null
`, 0o755},
	}
}

func args(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings: cannot happen
	}
	return string(b)
}

// editScript is the model of steps 1 and 2: an edit (which asks), the
// check (which a rule allows), the answer.
func editScript() *replay.Script {
	return &replay.Script{Turns: []replay.Turn{
		{Text: "I'll make the greeting friendlier.", ToolCalls: []replay.ToolCall{{ID: editCall, Name: "edit_file",
			Arguments: args(map[string]string{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hello, world"`})}},
			Usage: &replay.Usage{Input: 1500, Output: 40}},
		{Text: "Now the check.", ToolCalls: []replay.ToolCall{{ID: checkCall, Name: "run_command",
			Arguments: args(map[string]string{"command": "sh check.sh"})}},
			Usage: &replay.Usage{Input: 1700, Output: 20}},
		{Text: "Greeting updated: `main.go` now prints \"Hello, world\" and `sh check.sh` passes.",
			ChunkSize: wholeChunk, // the TUI form's cue arrives in one piece
			Usage:     &replay.Usage{Input: 1750, Output: 25},
			Expect:    &replay.Expect{ToolResultContains: "check: the greeting is friendly"}},
	}}
}

// crashScript is the model of step 3: the deploy (killed mid-command), then
// after the resume an answer that knows the deploy was not re-run.
func crashScript() *replay.Script {
	return &replay.Script{Turns: []replay.Turn{
		{Text: "Deploying.", ToolCalls: []replay.ToolCall{{ID: deployCall, Name: "run_command",
			Arguments: args(map[string]string{"command": "sh deploy.sh"})}},
			Usage: &replay.Usage{Input: 1500, Output: 15}},
		{Text: "Recovered after the crash. The deploy was **not re-run**: it may or may not have happened, " +
			"so I leave it to you. `deploy.log` says whether it did; deploy again only if it did not.",
			ChunkSize: wholeChunk,
			Usage:     &replay.Usage{Input: 1600, Output: 45},
			Expect:    &replay.Expect{ToolResultContains: "not run again"}},
	}}
}
