package policy

import "testing"

// FuzzDecide: no input may panic, and a command that runs `rm` as a simple
// command of its own is never allowed by run_command(ls *).
func FuzzDecide(f *testing.F) {
	for _, s := range runsRm {
		f.Add(s)
	}
	for _, s := range writesFiles {
		f.Add(s)
	}
	for _, s := range execForms {
		f.Add(s)
	}
	for _, tc := range writeForms {
		f.Add(tc.cmd)
	}
	p := mustPolicy(f, ModeAsk, []string{"run_command(ls *)"}, []string{"run_command(rm *)", "read_file(.env)"})
	f.Fuzz(func(t *testing.T, s string) {
		d := p.Decide(cmdCall(s))
		if d.Action == "" || d.Reason == "" {
			t.Fatalf("empty decision for %q", s)
		}
		if d.Action == Allow && d.Rule == "" {
			t.Fatalf("allow without a rule in ask mode: %q", s)
		}
	})
}

// FuzzSedAwk: the sed and awk readers take any text without a panic or a
// loop.
func FuzzSedAwk(f *testing.F) {
	for _, s := range []string{"s/a/b/w x", "1e ls", `a\`, "s/x", "{p", `BEGIN { system("x") }`, `print > "f"`,
		`"x" | getline`, "/re/ { print }", `"unterminated`, `@f(1)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := &analyzer{an: &analysis{}}
		a.sedScript(s, &callCtx{src: "sed"})
		a.awkProgram(s, &callCtx{src: "awk"}, "awk")
		analyze("sed " + shQuote(s) + " f; awk " + shQuote(s) + " f")
	})
}
