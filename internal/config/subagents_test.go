package config

import (
	"strings"
	"testing"
)

func TestSubagentsSection(t *testing.T) {
	f := newFixture(t)
	c, _, err := f.load(t, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Subagents != (Subagents{MaxParallel: 3, MaxDepth: 1}) {
		t.Fatalf("defaults = %+v", c.Subagents)
	}
	f.user(t, "[subagents]\nmax_parallel = 5\nmax_depth = 2\nbudget_share = 0.25\n")
	f.project(t, "[subagents]\nmax_parallel = 8\nmax_depth = 1\n")
	c, warns, err := f.load(t, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	// the project may lower max_depth, not raise max_parallel
	if c.Subagents != (Subagents{MaxParallel: 5, MaxDepth: 1, BudgetShare: 0.25}) {
		t.Fatalf("merged = %+v", c.Subagents)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "subagents.max_parallel") {
		t.Fatalf("warnings = %q, want one about max_parallel", warns)
	}
	for _, bad := range []string{"max_parallel = 0", "max_parallel = \"3\"", "max_depth = 9", "budget_share = 1.5", "budget_share = 0", "parallel = 2"} {
		f.project(t, "")
		f.user(t, "[subagents]\n"+bad+"\n")
		if _, _, err := f.load(t, Flags{}); err == nil || !strings.Contains(err.Error(), "subagents.") {
			t.Errorf("%s: err = %v, want an error naming the key", bad, err)
		}
	}
}
