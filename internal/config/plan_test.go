package config

import (
	"strings"
	"testing"

	"agent/internal/policy"
)

// A project file may set plan mode (stricter than ask) but never loosen a
// person's read-only with it.
func TestProjectPlanMode(t *testing.T) {
	f := newFixture(t)
	f.project(t, "approval = \"plan\"\n")
	c, warns, err := f.load(t, Flags{})
	if err != nil || c.Approval != policy.ModePlan || len(warns) != 0 || c.Origin["approval"] != FromProject {
		t.Errorf("project plan over the default ask: %v %s %q", err, c.Approval, warns)
	}
	c, warns, err = f.load(t, Flags{Approval: "read-only"})
	if err != nil || c.Approval != policy.ModeReadOnly {
		t.Errorf("project plan under --approval read-only: %v %s %q", err, c.Approval, warns)
	}
	f.user(t, "approval = \"read-only\"\n")
	c, warns, err = f.load(t, Flags{})
	if err != nil || c.Approval != policy.ModeReadOnly || len(warns) != 1 || !strings.Contains(warns[0], `stricter than "read-only"`) {
		t.Errorf("project plan over a user read-only: %v %s %q", err, c.Approval, warns)
	}
}
