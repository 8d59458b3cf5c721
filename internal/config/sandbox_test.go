package config

import (
	"slices"
	"strings"
	"testing"

	"agent/internal/sandbox"
)

func TestSandboxConfig(t *testing.T) {
	for _, tc := range []struct {
		name          string
		user, project string
		env           string
		flags         Flags
		mode          sandbox.Mode
		origin        string
		network       bool
		warn          string
	}{
		{name: "default under ask", mode: sandbox.ModeWorkspaceWrite, origin: FromDefault},
		{name: "default under read-only", flags: Flags{Approval: "read-only"}, mode: sandbox.ModeReadOnly, origin: FromDefault},
		{name: "default under full-auto", flags: Flags{Approval: "full-auto"}, mode: sandbox.ModeWorkspaceWrite, origin: FromDefault},
		{name: "user file", user: "[sandbox]\nmode = \"read-only\"\nnetwork = true\n", mode: sandbox.ModeReadOnly, origin: FromUser, network: true},
		{name: "project tightens", flags: Flags{Approval: "full-auto"}, project: "[sandbox]\nmode = \"read-only\"\n", mode: sandbox.ModeReadOnly, origin: FromProject},
		{name: "project cannot loosen", flags: Flags{Approval: "full-auto"}, project: "[sandbox]\nmode = \"off\"\n",
			mode: sandbox.ModeWorkspaceWrite, origin: FromDefault, warn: `sandbox.mode = "off" ignored`},
		{name: "project cannot open the network", user: "[sandbox]\nmode = \"workspace-write\"\n", project: "[sandbox]\nnetwork = true\n",
			mode: sandbox.ModeWorkspaceWrite, origin: FromUser, warn: "sandbox.network = true ignored"},
		{name: "project closes the network", user: "[sandbox]\nnetwork = true\n", project: "[sandbox]\nnetwork = false\n", mode: sandbox.ModeWorkspaceWrite, origin: FromDefault},
		{name: "project writable ignored", project: "[sandbox]\nwritable = [\"/\"]\n", mode: sandbox.ModeWorkspaceWrite, origin: FromDefault, warn: "[sandbox] writable ignored"},
		{name: "environment", env: "read-only", project: "[sandbox]\nmode = \"workspace-write\"\n", mode: sandbox.ModeReadOnly, origin: FromEnv},
		{name: "flag beats environment", env: "read-only", flags: Flags{Sandbox: "off"}, mode: sandbox.ModeOff, origin: FromFlag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.user != "" {
				f.user(t, tc.user)
			}
			if tc.project != "" {
				f.project(t, tc.project)
			}
			if tc.env != "" {
				f.env[EnvSandbox] = tc.env
			}
			c, warns, err := f.load(t, tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if c.Sandbox.Mode != tc.mode || c.Origin["sandbox.mode"] != tc.origin || c.Sandbox.Network != tc.network {
				t.Errorf("mode %v from %q, network %v; want %v from %q, network %v", c.Sandbox.Mode, c.Origin["sandbox.mode"], c.Sandbox.Network, tc.mode, tc.origin, tc.network)
			}
			joined := strings.Join(warns, "\n")
			if tc.warn == "" && joined != "" || tc.warn != "" && !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want %q", joined, tc.warn)
			}
			if len(c.Sandbox.Writable) != 0 && tc.project != "" && tc.user == "" {
				t.Errorf("a project file made paths writable: %q", c.Sandbox.Writable)
			}
		})
	}
}

func TestSandboxConfigErrors(t *testing.T) {
	for text, want := range map[string]string{
		"[sandbox]\nmode = \"strict\"\n":     `key "sandbox.mode": must be one of "workspace-write", "read-only" or "off"`,
		"[sandbox]\nnetwork = \"yes\"\n":     `key "sandbox.network": must be true or false`,
		"[sandbox]\nwritable = \"/tmp\"\n":   `key "sandbox.writable": must be a list of directories`,
		"[sandbox]\nenv_allow = [\"A=B\"]\n": `key "sandbox.env_allow": item 1 ("A=B") is not a variable name or glob`,
		"[sandbox]\nmod = \"off\"\n":         `unknown key "sandbox.mod"`,
		"sandbox = \"off\"\n":                `key "sandbox" must be a table`,
	} {
		f := newFixture(t)
		f.user(t, text)
		if _, _, err := f.load(t, Flags{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	f := newFixture(t)
	if _, _, err := f.load(t, Flags{Sandbox: "none"}); err == nil || !strings.Contains(err.Error(), "flag --sandbox") {
		t.Errorf("bad flag: %v", err)
	}
	f.env[EnvSandbox] = "none"
	if _, _, err := f.load(t, Flags{}); err == nil || !strings.Contains(err.Error(), EnvSandbox) {
		t.Errorf("bad environment: %v", err)
	}
	f = newFixture(t)
	f.user(t, "[sandbox]\nwritable = [\"~/.cargo\"]\nenv_allow = [\"CI_*\"]\n")
	c, _, err := f.load(t, Flags{})
	if err != nil || !slices.Equal(c.Sandbox.Writable, []string{"~/.cargo"}) || !slices.Equal(c.Sandbox.EnvAllow, []string{"CI_*"}) {
		t.Errorf("user writable/env_allow: %+v, %v", c.Sandbox, err)
	}
}
