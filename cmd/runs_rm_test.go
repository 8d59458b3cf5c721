package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/store"
)

// The logic of agent export, runs rm and runs prune is internal/app's (and
// tested there); these tests pin what cmd adds: the exit code and the exact
// message of each outcome, which scripts rely on.

// cliHome makes a state directory with finished runs (five events each, the
// first ones idle for two days) and points AGENT_HOME at it.
func cliHome(t *testing.T, old []string, fresh ...string) string {
	t.Helper()
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	t.Setenv("AGENT_HOME", home)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("USER", "tester")
	st, err := store.Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := t.TempDir()
	for _, id := range append(append([]string{}, old...), fresh...) {
		if err := st.CreateRun(ctx, store.Run{ID: id, Workspace: ws, Model: "m", Approval: "ask", Prompt: "p"}); err != nil {
			t.Fatal(err)
		}
		for _, d := range []event.Payload{
			&event.RunStartedData{Workspace: ws, Model: "m", Approval: "ask"},
			&event.UserMessageData{Text: "p"},
			&event.ToolCallData{CallID: "c1", Name: "run_command", Arguments: `{"command":"true"}`, Risk: event.RiskExec},
			&event.ToolResultData{CallID: "c1", Status: "ok"},
			&event.RunFinishedData{Status: event.StatusCompleted, Steps: 1, ToolCalls: 1},
		} {
			e := event.New(id, d)
			if err := st.Append(ctx, &e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, id := range old {
		if _, err := st.DB().Exec(`UPDATE runs SET updated = ? WHERE id = ?`, time.Now().Add(-48*time.Hour).UTC().Format(time.RFC3339Nano), id); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

type cliResult struct {
	code           int
	stdout, stderr string // stderr: what the command printed, then the error line Execute prints
}

// cli runs the command line in this process as Execute does.
func cli(t *testing.T, args ...string) cliResult {
	t.Helper()
	root := newRoot()
	var out, errw bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errw)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	r := cliResult{code: ExitOK}
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.code
		errw.WriteString("agent: " + ee.err.Error() + "\n")
	default:
		t.Fatalf("agent %v: not an exit error: %v", args, err)
	}
	r.stdout, r.stderr = out.String(), errw.String()
	return r
}

func TestExportExitCodesAndMessages(t *testing.T) {
	const run = "20260101T000000-aaaaaa"
	cliHome(t, nil, run)
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "run.jsonl")
	file := filepath.Join(dir, "run.jsonl")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // exact, or a prefix when it ends in "…"
	}{
		{"directory missing", []string{"export", run, "-o", missing}, ExitUsage,
			"agent: -o " + missing + ": the directory " + filepath.Dir(missing) + " does not exist (create it or fix the path)\n"},
		{"a directory", []string{"export", run, "-o", dir}, ExitUsage,
			"agent: -o " + dir + " is a directory: give a file name, e.g. -o " + filepath.Join(dir, run+".jsonl") + "\n"},
		{"unknown run", []string{"export", "20200101T000000-ffffff"}, ExitUsage,
			"agent: run \"20200101T000000-ffffff\": not found (see `agent runs`)\n"},
		{"no run id", []string{"export"}, ExitUsage,
			"agent: agent export needs one run id, e.g. agent export 20261129T203216-3f9a1c -o run.jsonl (list them with agent runs)\n"},
		{"to a file", []string{"export", "20260101T0000", "-o", file}, ExitOK,
			"exported run " + run + ": 5 events, …"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if prefix, ok := strings.CutSuffix(tc.stderr, "…"); ok {
				if !strings.HasPrefix(r.stderr, prefix) {
					t.Errorf("stderr %q, want it to start %q", r.stderr, prefix)
				}
			} else if r.stderr != tc.stderr {
				t.Errorf("stderr\n%q, want\n%q", r.stderr, tc.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing (the export went to a file or failed)", r.stdout)
			}
		})
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("export created the missing directory: %v", err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if r := cli(t, "export", run, "-o", file); !strings.HasSuffix(r.stderr, ", full, to "+file+"\n") || !strings.Contains(r.stderr, " bytes") {
		t.Errorf("stderr %q, want it to end with the mode and the file", r.stderr)
	}
	r := cli(t, "export", run)
	if n := strings.Count(r.stdout, "\n"); r.code != 0 || n != 5 || int64(len(r.stdout)) != fi.Size() {
		t.Errorf("export to stdout: exit %d, %d lines, %d bytes; want 0, 5 lines, the file's %d bytes", r.code, n, len(r.stdout), fi.Size())
	}
	if want := "exported run " + run + ": 5 events, "; !strings.HasPrefix(r.stderr, want) || !strings.HasSuffix(r.stderr, ", full, to stdout\n") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestRunsRmExitCodesAndMessages(t *testing.T) {
	const a, b = "20260101T000000-aaaaaa", "20260101T000000-bbbbbb"
	home := cliHome(t, nil, a, b)
	held, err := app.TryLockRun(home, b)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"no ids", []string{"runs", "rm"}, ExitUsage, "",
			"agent: agent runs rm needs run ids, e.g. agent runs rm 20261129T203216-3f9a1c (list them with agent runs)\n"},
		{"unknown", []string{"runs", "rm", a, "nope"}, ExitUsage, "",
			"agent: nothing deleted: run \"nope\": not found (see `agent runs`)\n"},
		{"ambiguous", []string{"runs", "rm", "2026"}, ExitUsage, "",
			"agent: nothing deleted: run id prefix \"2026\" is ambiguous (" + a + ", " + b + ", ...): give more characters\n"},
		{"in use", []string{"runs", "rm", a, b}, ExitUsage, "",
			"agent: nothing deleted: run " + b + " is in use by a live agent process; wait for it to finish or stop it (Ctrl-C), then retry\n"},
		{"deleted", []string{"runs", "rm", a, "20260101T000000-a"}, ExitOK,
			"deleted run " + a + ": 5 events, 0 checkpoints\n", ""},
		{"deleted before", []string{"runs", "rm", a}, ExitUsage, "",
			"agent: nothing deleted: run \"" + a + "\": not found (see `agent runs`)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, tc.args...)
			if r.code != tc.code || r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q;\nwant %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, "runs", "rm", b); r.code != 0 || r.stdout != "deleted run "+b+": 5 events, 0 checkpoints\n" {
		t.Errorf("rm after the unlock: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestRunsPruneExitCodesAndMessages(t *testing.T) {
	const oldFree, oldHeld, fresh = "20260101T000000-aaaaaa", "20260101T000000-bbbbbb", "20260101T000000-cccccc"
	home := cliHome(t, []string{oldFree, oldHeld}, fresh)
	held, err := app.TryLockRun(home, oldHeld)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	r := cli(t, "runs", "prune", "--older-than", "24h", "--dry-run")
	if lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n"); r.code != 0 || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "would delete run "+oldFree+" (last active ") || !strings.HasPrefix(lines[1], "would delete run "+oldHeld+" (last active ") {
		t.Errorf("dry run: exit %d, stdout %q", r.code, r.stdout)
	}
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"no flag", []string{"runs", "prune"}, ExitUsage, "",
			"agent: agent runs prune needs --older-than, e.g. --older-than 720h (30 days)\n"},
		{"days", []string{"runs", "prune", "--older-than", "30d"}, ExitUsage, "",
			"agent: --older-than \"30d\" is not a positive Go duration: use hours, e.g. --older-than 720h for 30 days\n"},
		{"nothing that old", []string{"runs", "prune", "--older-than", "720h"}, ExitOK, "", "no runs older than 720h0m0s\n"},
		{"nothing that old, dry", []string{"runs", "prune", "--older-than", "720h", "--dry-run"}, ExitOK, "", "no runs older than 720h0m0s\n"},
		{"prune", []string{"runs", "prune", "--older-than", "24h"}, ExitOK,
			"deleted run " + oldFree + ": 5 events, 0 checkpoints\n", "skipped run " + oldHeld + ": in use by a live agent process\n"},
		{"again", []string{"runs", "prune", "--older-than", "24h"}, ExitOK,
			"", "skipped run " + oldHeld + ": in use by a live agent process\nno runs older than 24h0m0s\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, tc.args...)
			if r.code != tc.code || r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q;\nwant %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// pruneRetention, which agent run calls before its first line, prints
// nothing and maps an unusable journal to exit 2.
func TestPruneRetentionExitCode(t *testing.T) {
	const old = "20260101T000000-aaaaaa"
	home := cliHome(t, []string{old})
	if n, err := pruneRetention(context.Background(), home, 24*time.Hour); n != 1 || err != nil {
		t.Errorf("pruneRetention = %d, %v; want 1 run deleted", n, err)
	}
	if err := os.Chmod(filepath.Join(home, "agent.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := pruneRetention(context.Background(), home, 24*time.Hour)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(err.Error(), "chmod") {
		t.Errorf("pruneRetention with a 0644 journal = %v, want exit 2 naming chmod", err)
	}
}
