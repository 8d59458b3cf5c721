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
