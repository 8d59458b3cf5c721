package policy

import (
	"fmt"
	"strings"
	"testing"
)

// adversarialCase is an input built to be slow. Each must be decided
// conservatively (TestAdversarialInputsDecide), its allocations must grow no
// faster than its size (TestAdversarialInputsScaleLinearly: a blow-up,
// quadratic or worse, shows there without a clock), and its speed is a
// benchmark (BenchmarkAdversarialInputs), never a timed test.
type adversarialCase struct {
	name   string
	policy func(t testing.TB) *Policy
	cmd    func(n int) string // the input at size n (n = 1 is the full size)
	want   Action
}

func adversarialCases() []adversarialCase {
	ask := func(t testing.TB) *Policy {
		return mustPolicy(t, ModeAsk, []string{"run_command(ls *)", "edit_file(a/**/b/**/c)"},
			[]string{"run_command(rm *)", "run_command(* | bash)", "read_file(**/x/**/y/**/.env)", "write_file(a/**/b/**/z)"})
	}
	auto := func(t testing.TB) *Policy {
		return mustPolicy(t, ModeFullAuto, nil, []string{"run_command(rm * --force)", "run_command(*rm -rf*)"})
	}
	rep := func(s string, k int) func(int) string {
		return func(n int) string { return strings.Repeat(s, k*n) }
	}
	wrap := func(pre func(int) string, post string) func(int) string {
		return func(n int) string { return pre(n) + post }
	}
	lead := func(pre string, body func(int) string, post string) func(int) string {
		return func(n int) string { return pre + body(n) + post }
	}
	return []adversarialCase{
		{"wrapper chain", ask, wrap(rep("nohup ", 20000), "rm x"), Deny},
		{"xargs chain", ask, wrap(rep("xargs ", 20000), "ls"), Deny},
		{"eval chain", ask, wrap(rep("eval ", 20000), "rm x"), Deny},
		{"long chain", ask, wrap(rep("ls -la && ", 5000), "ls"), Allow},
		{"long word", ask, lead("ls ", rep("$a", 50000), ""), Allow},
		{"deep path", ask, lead("cat ", rep("a/", 3000), ".env"), Ask},
		{"deep glob path", ask, lead("cat ", rep("*/", 2000), ".env"), Deny},
		{"nested subst", ask, func(n int) string {
			return strings.Repeat("$(", 2000*n) + "ls" + strings.Repeat(")", 2000*n)
		}, Deny},
		{"unparseable", ask, wrap(rep("ls | ", 20000), "("), Ask},
		{"unparseable rm", ask, wrap(rep("ls | ", 20000), "rm x ("), Deny},
		{"many rm globs", ask, lead("rm ", rep("*", 50000), ""), Deny},
		{"many rm words", auto, lead("frob ", rep("rm ", 20000), ""), Deny},
		{"many plain words", auto, lead("frob ", rep("x ", 50000), ""), Allow},
		{"many code words", auto, lead("frob ", rep("'a b' ", 5000), ""), Allow},
		{"long sed script", auto, lead("sed '", rep("s/a/b/;", 20000), "' f"), Allow},
		{"long awk program", auto, lead("awk '", rep(`{ print "x" > "/dev/stderr" } `, 5000), "' f"), Allow},
		{"many sort options", auto, lead("sort ", rep("--ou ", 20000), "f"), Allow},
		{"many git -c", auto, lead("git ", rep("-c a.b=c ", 10000), "log"), Allow},
	}
}

func TestAdversarialInputsDecide(t *testing.T) {
	for _, tc := range adversarialCases() {
		p := tc.policy(t)
		if d := p.Decide(cmdCall(tc.cmd(1))); d.Action != tc.want {
			t.Errorf("%s: got %s (%.200s), want %s", tc.name, d.Action, d.Reason, tc.want)
		}
	}
	// bash -c nested deeper than the reader goes: denied, not followed.
	if d := adversarialCases()[0].policy(t).Decide(cmdCall(nestBashC(12))); d.Action != Deny {
		t.Errorf("bash -c nesting: got %s (%.200s), want deny", d.Action, d.Reason)
	}
	p := adversarialCases()[0].policy(t)
	if d := p.Decide(Call{Tool: "edit_file", Path: strings.Repeat("a/b/", 1500) + "c", InsideWorkspace: true}); d.Action != Allow {
		t.Errorf("deep edit path: %s", d.Action)
	}
}

// Doubling an input may at most about double the work: allocations are
// counted (deterministic), so no clock is involved.
func TestAdversarialInputsScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of large inputs")
	}
	for _, tc := range adversarialCases() {
		p := tc.policy(t)
		small, big := tc.cmd(1), tc.cmd(2)
		a1 := testing.AllocsPerRun(2, func() { p.Decide(cmdCall(small)) })
		a2 := testing.AllocsPerRun(2, func() { p.Decide(cmdCall(big)) })
		if a1 > 0 && a2/a1 > 3 {
			t.Errorf("%s: %.0f allocations at size n, %.0f at 2n: grows faster than linearly", tc.name, a1, a2)
		}
	}
}

func BenchmarkAdversarialInputs(b *testing.B) {
	for _, tc := range adversarialCases() {
		p := tc.policy(b)
		cmd := tc.cmd(1)
		b.Run(strings.ReplaceAll(tc.name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(cmd)))
			for i := 0; i < b.N; i++ {
				p.Decide(cmdCall(cmd))
			}
		})
	}
	b.Run(fmt.Sprintf("bash_-c_nesting_%d", 12), func(b *testing.B) {
		p := adversarialCases()[0].policy(b)
		cmd := nestBashC(12)
		for i := 0; i < b.N; i++ {
			p.Decide(cmdCall(cmd))
		}
	})
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
