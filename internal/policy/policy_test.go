package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"agent/internal/event"
)

func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{"read-only": ModeReadOnly, "ask": ModeAsk, "auto-edit": ModeAutoEdit,
		"full-auto": ModeFullAuto, "FULL_AUTO": ModeFullAuto, " Ask ": ModeAsk} {
		got, err := ParseMode(s)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, got, err)
		}
	}
	_, err := ParseMode("yolo")
	var me *ModeError
	if !errors.As(err, &me) || err.Error() != `unknown approval mode "yolo" (valid: read-only, plan, ask, auto-edit, full-auto)` {
		t.Errorf("error %v", err)
	}
	if !ModeFullAuto.LooserThan(ModeAutoEdit) || ModeReadOnly.LooserThan(ModeAsk) || ModeAsk.String() != "ask" {
		t.Error("ordering or names")
	}
	var m Mode
	if err := m.UnmarshalText([]byte("auto-edit")); err != nil || m != ModeAutoEdit {
		t.Error("UnmarshalText", m, err)
	}
}

func TestParseRule(t *testing.T) {
	for _, s := range []string{"run_command(go test *)", "run_command", "read_file(.env)", "edit_file(docs/**)",
		"*", "*(secrets/**)", "run_command(git log:*)", "write_file(/etc/**)", "read_file(~/.ssh/**)", "glob([ab]*.go)"} {
		r, err := ParseRule(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if r.String() != s {
			t.Errorf("%q: String() = %q", s, r.String())
		}
	}
	for s, want := range map[string]string{
		"":                    "empty rule",
		"Bash(rm *)":          `unknown tool "Bash" (valid: edit_file, glob, grep, list_dir, read_file, run_command, update_plan, write_file, or * for every tool); did you mean run_command(...)?`,
		"run_command(":        "missing closing ')'",
		"run_command()":       `empty pattern; write "run_command" alone to mean any argument`,
		"read_file(../x)":     `".." is not allowed`,
		"read_file([ab)":      "unclosed '['",
		"run command":         "expected TOOL or TOOL(GLOB)",
		"run_command(a\x00b)": "control character",
	} {
		_, err := ParseRule(s)
		var re *RuleError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", s, err, want)
		}
	}
}

func TestCommandGlob(t *testing.T) {
	for _, tc := range []struct {
		pat, cmd string
		want     bool
	}{
		{"ls *", "ls", true}, {"ls *", "ls -la", true}, {"ls *", "lsblk", false}, {"ls *", "ls -la /x y", true},
		{"go test *", "go test ./...", true}, {"go test *", "go testx", false}, {"go test *", "go  test   ./x", true},
		{"git log:*", "git log", true}, {"git log:*", "git log -p", true}, {"git log:*", "git logx", false},
		{"npm run *:ci", "npm run test:ci", true}, {"echo \\*", "echo '*'", true}, {"echo \\*", "echo *", false}, {"echo \\*", "echo x", false},
		{"make", "make", true}, {"make", "make all", false}, {"*", "anything at all", true},
	} {
		r, err := ParseRule("run_command(" + tc.pat + ")")
		if err != nil {
			t.Fatal(err)
		}
		p := &Policy{Mode: ModeAsk, Allow: []Rule{r}}
		if got := p.Decide(cmdCall(tc.cmd)).Action == Allow; got != tc.want {
			t.Errorf("%q vs %q: %v, want %v", tc.pat, tc.cmd, got, tc.want)
		}
	}
}

func TestPathGlob(t *testing.T) {
	for _, tc := range []struct {
		pat, path string
		want      bool
	}{
		{"docs/**", "docs/a.md", true}, {"docs/**", "docs/x/y/z.md", true}, {"docs/**", "src/docs/a.md", false},
		{"docs/**", "docsx/a.md", false}, {"docs/*.md", "docs/a.md", true}, {"docs/*.md", "docs/x/a.md", false},
		{"**/*.go", "a.go", true}, {"**/*.go", "x/y/a.go", true}, {"src/**/test_*.py", "src/test_a.py", true},
		{"src/**/test_*.py", "src/a/b/test_a.py", true}, {".env", ".env", true}, {".env", "sub/.env", true},
		{".env", ".envrc", false}, {"./.env", "sub/.env", false}, {"./.env", ".env", true}, {"*.md", "x/README.md", true},
		{"secrets", "secrets/key.pem", true}, {"[ab].txt", "a.txt", true}, {"[!ab].txt", "a.txt", false},
		{"?.txt", "ab.txt", false}, {"/ws/docs/**", "docs/a", true}, {"docs/**", "/ws/docs/a", true},
		{"docs/**", "/other/docs/a", false},
	} {
		r, err := ParseRule("edit_file(" + tc.pat + ")")
		if err != nil {
			t.Fatal(err)
		}
		p := &Policy{Mode: ModeAsk, Allow: []Rule{r}, Workspace: "/ws"}
		rel, inside := NormalizePath("/ws", tc.path)
		if got := p.Decide(Call{Tool: "edit_file", Path: rel, InsideWorkspace: inside}).Action == Allow; got != tc.want {
			t.Errorf("%q vs %q: %v, want %v", tc.pat, tc.path, got, tc.want)
		}
	}
}

func TestModes(t *testing.T) {
	type row struct {
		tool   string
		risk   event.Risk
		inside bool
		want   [4]Action // read-only, ask, auto-edit, full-auto
	}
	A, D, Q := Allow, Deny, Ask
	for _, r := range []row{
		{"read_file", "", true, [4]Action{A, A, A, A}},
		{"list_dir", "", true, [4]Action{A, A, A, A}},
		{"glob", "", true, [4]Action{A, A, A, A}},
		{"grep", "", true, [4]Action{A, A, A, A}},
		{"update_plan", "", true, [4]Action{A, A, A, A}},
		{"write_file", "", true, [4]Action{D, Q, A, A}},
		{"edit_file", "", true, [4]Action{D, Q, A, A}},
		{"edit_file", "", false, [4]Action{D, Q, Q, A}},
		{"run_command", "", true, [4]Action{D, Q, Q, A}},
		{"mcp_thing", "", true, [4]Action{D, Q, Q, A}},
		{"mcp_reader", event.RiskRead, true, [4]Action{A, A, A, A}},
	} {
		for i, m := range []Mode{ModeReadOnly, ModeAsk, ModeAutoEdit, ModeFullAuto} {
			c := Call{Tool: r.tool, Risk: r.risk, Path: "x.go", InsideWorkspace: r.inside}
			if r.tool == "run_command" {
				c = cmdCall("go build ./...")
			}
			d := (&Policy{Mode: m}).Decide(c)
			if d.Action != r.want[i] || d.Source != SourceMode {
				t.Errorf("%s %s inside=%v: got %s/%s (%s), want %s", m, r.tool, r.inside, d.Action, d.Source, d.Reason, r.want[i])
			}
		}
	}
	if d := (&Policy{}).Decide(Call{Tool: "write_file", Path: "x", InsideWorkspace: true}); d.Action != Ask {
		t.Errorf("zero policy: %s", d.Action)
	}
}

func TestRulesAndModes(t *testing.T) {
	p := func(m Mode) *Policy {
		return mustPolicy(t, m, []string{"edit_file(docs/**)", "run_command(go test *)", "write_file"},
			[]string{"read_file(.env)", "edit_file(go.sum)", "run_command(git push *)"})
	}
	for _, tc := range []struct {
		mode Mode
		call Call
		want Action
		src  string
	}{
		{ModeAsk, Call{Tool: "edit_file", Path: "docs/a.md", InsideWorkspace: true}, Allow, SourceRule},
		{ModeAsk, Call{Tool: "edit_file", Path: "src/a.go", InsideWorkspace: true}, Ask, SourceMode},
		{ModeAsk, Call{Tool: "write_file", Path: "src/a.go", InsideWorkspace: true}, Allow, SourceRule},
		{ModeAsk, Call{Tool: "write_file", Path: "../a.go", InsideWorkspace: false}, Ask, SourceMode},
		{ModeReadOnly, Call{Tool: "edit_file", Path: "docs/a.md", InsideWorkspace: true}, Deny, SourceMode},
		{ModeReadOnly, cmdCall("go test ./..."), Deny, SourceMode},
		{ModeAsk, cmdCall("go test ./..."), Allow, SourceRule},
		{ModeFullAuto, cmdCall("git push origin"), Deny, SourceRule},
		{ModeFullAuto, Call{Tool: "read_file", Path: ".env", InsideWorkspace: true}, Deny, SourceRule},
		{ModeFullAuto, Call{Tool: "grep", Path: "config/.env", InsideWorkspace: true}, Deny, SourceRule},
		{ModeAsk, Call{Tool: "read_file", Path: "main.go", InsideWorkspace: true}, Allow, SourceMode},
		{ModeAutoEdit, Call{Tool: "edit_file", Path: "go.sum", InsideWorkspace: true}, Deny, SourceRule},
		{ModeAutoEdit, Call{Tool: "write_file", Path: "go.sum", InsideWorkspace: true}, Deny, SourceRule},
		{ModeAutoEdit, Call{Tool: "write_file", Path: "go.mod", InsideWorkspace: true}, Allow, SourceMode},
	} {
		d := p(tc.mode).Decide(tc.call)
		if d.Action != tc.want || d.Source != tc.src {
			t.Errorf("%s %+v: got %s/%s (%s), want %s/%s", tc.mode, tc.call, d.Action, d.Source, d.Reason, tc.want, tc.src)
		}
	}
	d := p(ModeAsk).Decide(Call{Tool: "read_file", Path: ".env", InsideWorkspace: true})
	if d.Rule != "read_file(.env)" || d.Reason != "denied by rule read_file(.env): read_file .env" {
		t.Errorf("%+v", d)
	}
	if r, ok := p(ModeAsk).PathDenied("grep", "a/.env"); !ok || r.String() != "read_file(.env)" {
		t.Error("PathDenied", r, ok)
	}
	if _, ok := p(ModeAsk).PathDenied("grep", "a/env.go"); ok {
		t.Error("PathDenied false positive")
	}
}

func TestMainArgAndMakeCall(t *testing.T) {
	for _, tc := range []struct{ tool, args, want string }{
		{"run_command", `{"command":"ls -la","timeout_sec":5}`, "ls -la"},
		{"read_file", `{"path":"a/b.go"}`, "a/b.go"},
		{"list_dir", `{}`, "."},
		{"grep", `{"pattern":"x"}`, "."},
		{"glob", `{"pattern":"**/*.go"}`, "**/*.go"},
		{"update_plan", `{"plan":[]}`, ""},
		{"read_file", `not json`, ""},
		{"read_file", `{"path":7}`, ""},
	} {
		if got := MainArg(tc.tool, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("MainArg(%s, %s) = %q", tc.tool, tc.args, got)
		}
	}
	c := MakeCall("edit_file", "", json.RawMessage(`{"path":"/ws/docs/../docs/a.md"}`), "/ws")
	if c.Path != "docs/a.md" || !c.InsideWorkspace {
		t.Errorf("%+v", c)
	}
	c = MakeCall("write_file", "", json.RawMessage(`{"path":"../x"}`), "/ws")
	if c.InsideWorkspace || c.Path != "/x" {
		t.Errorf("%+v", c)
	}
	c = MakeCall("run_command", event.RiskExec, json.RawMessage(`{"command":"ls"}`), "/ws")
	if c.Command != "ls" || c.Risk != event.RiskExec {
		t.Errorf("%+v", c)
	}
}

func TestBareRulesAndFind(t *testing.T) {
	for _, tc := range []struct {
		allow, deny []string
		cmd         string
		want        Action
	}{
		{[]string{"run_command"}, nil, "rm -rf x && make", Allow},
		{[]string{"run_command"}, nil, "$X", Ask},           // computed command name: never vouched for
		{[]string{"run_command"}, nil, "ls > out.txt", Ask}, // a write redirection: never by a command rule
		{[]string{"*"}, nil, "go build", Allow},
		{[]string{"run_command"}, []string{"*"}, "ls", Deny},
		{[]string{"run_command"}, []string{"run_command"}, "ls", Deny},
		{[]string{"run_command(find *)"}, nil, "find . -name '*.go'", Allow},
		{[]string{"run_command(find *)"}, nil, "find . -delete", Ask},
		{[]string{"run_command(find *)", "run_command(rm *)"}, nil, "find . -delete", Allow},
		{[]string{"run_command(find *)"}, nil, "find . -exec rm {} +", Ask},
		{[]string{"run_command(find *)", "run_command(rm *)"}, nil, "find . -exec rm {} +", Allow},
		{[]string{"run_command(find *)"}, nil, "find . $ACTION", Ask},
		{[]string{"run_command(find *)"}, nil, "find . -de*", Ask},
		{[]string{"run_command(ls *)"}, nil, "ls\n# rm -rf x\n", Allow},
	} {
		p := mustPolicy(t, ModeAsk, tc.allow, tc.deny)
		if d := p.Decide(cmdCall(tc.cmd)); d.Action != tc.want {
			t.Errorf("allow %v deny %v %q: got %s (%s), want %s", tc.allow, tc.deny, tc.cmd, d.Action, d.Reason, tc.want)
		}
	}
	if d := mustPolicy(t, ModeFullAuto, nil, []string{"*"}).Decide(Call{Tool: "read_file", Path: "a"}); d.Action != Deny {
		t.Errorf("* deny on read_file: %s", d.Action)
	}
}

func TestConcurrentDecide(t *testing.T) {
	p := mustPolicy(t, ModeAsk, []string{"run_command(ls *)"}, []string{"run_command(rm *)", "read_file(.env)"})
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for _, c := range runsRm {
				if d := p.Decide(cmdCall(c)); d.Action != Deny {
					t.Errorf("%q: %s", c, d.Action)
				}
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

func TestHandBuiltRules(t *testing.T) {
	p := &Policy{Mode: ModeAsk, Allow: []Rule{{Tool: "run_command", Pattern: "ls *"}},
		Deny: []Rule{{Tool: "read_file", Pattern: ".env"}, {Tool: "run_command", Pattern: "rm *"}}}
	for c, want := range map[string]Action{"ls -la": Allow, "ls; rm x": Deny, "cat .env": Deny} {
		if d := p.Decide(cmdCall(c)); d.Action != want {
			t.Errorf("%q: %s (%s)", c, d.Action, d.Reason)
		}
	}
	if _, ok := p.PathDenied("read_file", ".env"); !ok {
		t.Error("PathDenied")
	}
}
