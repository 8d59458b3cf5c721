package policy

import (
	"strings"
	"testing"
	"time"
)

// Inputs built to be slow: each must decide quickly (well under a second
// on a loaded machine, ten under the race detector) and conservatively. The
// bound catches a blow-up (quadratic or worse), not a regression of speed:
// that is what the benchmarks measure.
func TestAdversarialInputsStayFast(t *testing.T) {
	p := mustPolicy(t, ModeAsk, []string{"run_command(ls *)", "edit_file(a/**/b/**/c)"},
		[]string{"run_command(rm *)", "run_command(* | bash)", "read_file(**/x/**/y/**/.env)", "write_file(a/**/b/**/z)"})
	deep := strings.Repeat("a/", 3000) + ".env"
	for name, tc := range map[string]struct {
		cmd  string
		want Action
	}{
		"wrapper chain":   {strings.Repeat("nohup ", 20000) + "rm x", Deny},
		"xargs chain":     {strings.Repeat("xargs ", 20000) + "ls", Deny},
		"eval chain":      {strings.Repeat("eval ", 20000) + "rm x", Deny},
		"long chain":      {strings.Repeat("ls -la && ", 5000) + "ls", Allow},
		"long word":       {"ls " + strings.Repeat("$a", 50000), Allow},
		"deep path":       {"cat " + deep, Ask},
		"deep glob path":  {"cat " + strings.Repeat("*/", 2000) + ".env", Deny},
		"nested subst":    {strings.Repeat("$(", 2000) + "ls" + strings.Repeat(")", 2000), Deny},
		"unparseable":     {strings.Repeat("ls | ", 20000) + "(", Ask},
		"unparseable rm":  {strings.Repeat("ls | ", 20000) + "rm x (", Deny},
		"many rm globs":   {"rm " + strings.Repeat("*", 50000), Deny},
		"bash -c nesting": {nestBashC(12), Deny},
	} {
		start := time.Now()
		d := p.Decide(cmdCall(tc.cmd))
		if el := time.Since(start); el > slowFactor*time.Second {
			t.Errorf("%s: took %v", name, el)
		}
		if d.Action != tc.want {
			t.Errorf("%s: got %s (%.200s), want %s", name, d.Action, d.Reason, tc.want)
		}
	}
	// the fail-closed reading of unknown commands' words, sed scripts, awk
	// programs and option tables
	q := mustPolicy(t, ModeFullAuto, nil, []string{"run_command(rm * --force)", "run_command(*rm -rf*)"})
	for name, tc := range map[string]struct {
		cmd  string
		want Action
	}{
		"many rm words":     {"frob " + strings.Repeat("rm ", 20000), Deny},
		"many plain words":  {"frob " + strings.Repeat("x ", 50000), Allow},
		"many code words":   {"frob " + strings.Repeat("'a b' ", 5000), Allow},
		"long sed script":   {"sed '" + strings.Repeat("s/a/b/;", 20000) + "' f", Allow},
		"long awk program":  {"awk '" + strings.Repeat(`{ print "x" > "/dev/stderr" } `, 5000) + "' f", Allow},
		"many sort options": {"sort " + strings.Repeat("--ou ", 20000) + "f", Allow},
		"many git -c":       {"git " + strings.Repeat("-c a.b=c ", 10000) + "log", Allow},
	} {
		start := time.Now()
		d := q.Decide(cmdCall(tc.cmd))
		if el := time.Since(start); el > slowFactor*time.Second {
			t.Errorf("%s: took %v", name, el)
		}
		if d.Action != tc.want {
			t.Errorf("%s: got %s (%.200s), want %s", name, d.Action, d.Reason, tc.want)
		}
	}
	start := time.Now()
	d := p.Decide(Call{Tool: "edit_file", Path: strings.Repeat("a/b/", 1500) + "c", InsideWorkspace: true})
	if el := time.Since(start); el > slowFactor*time.Second || d.Action != Allow {
		t.Errorf("deep edit path: %v %s", el, d.Action)
	}
}

// nestBashC builds bash -c 'bash -c ... rm x' n levels deep.
func nestBashC(n int) string {
	s := "rm x"
	for i := 0; i < n; i++ {
		s = "bash -c " + shQuote(s)
	}
	return s
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
