package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agent/internal/atomicfile"
	"agent/internal/store"
)

// exportEnv is a workspace whose .env file holds a secret the journal of its
// run has in plain text (as if the secret was added after the run), a real
// journal and a real session on them.
type exportEnv struct {
	ws, secret, run string
	svc             *Service
	st              *store.Store
}

func newExportEnv(t *testing.T) *exportEnv {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user config file of the machine
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "state")
	svc, err := Open(context.Background(), Options{Settings: &Settings{
		Workspace: ws, Home: home, Model: "m", BaseURL: "http://127.0.0.1:1/v1", Approval: "ask"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	e := &exportEnv{ws: ws, secret: marker(t), run: "20260101T000000-aaaaaa", svc: svc, st: svc.store}
	addRun(t, e.st, e.run, ws, e.secret, 0)
	if b, err := os.ReadFile(filepath.Join(home, "agent.db-wal")); err != nil || !bytes.Contains(b, []byte(e.secret)) {
		t.Fatalf("the journal does not hold the secret in plain text (%v): the redaction checks could not fail", err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("API_TOKEN="+e.secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// lines reads a JSONL export: each line one JSON object.
func lines(t *testing.T, p string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d of %s is not JSON: %v: %s", len(out)+1, p, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

func exportRows(t *testing.T, st *store.Store, run string) []store.AuditEntry {
	t.Helper()
	log, err := st.AuditLog(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.AuditEntry
	for _, r := range log {
		if r.Action == "export" {
			out = append(out, r)
		}
	}
	return out
}

// ExportFile writes the run's events as JSON lines to a 0600 file, with the
// secret the journal holds redacted, returns the absolute path and the
// event count that match the file, and records the export in the audit log.
// The path is resolved as a person in the session means it.
func TestExportFileWritesRedactedEvents(t *testing.T) {
	e := newExportEnv(t)
	ctx := context.Background()
	if err := os.Mkdir(filepath.Join(e.ws, "out"), 0o700); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	abs := filepath.Join(t.TempDir(), "abs.jsonl")
	tests := []struct{ name, path, want string }{
		{"empty: the run's name in the workspace", "", filepath.Join(e.ws, e.run+".jsonl")},
		{"relative: from the workspace", "out/trace.jsonl", filepath.Join(e.ws, "out", "trace.jsonl")},
		{"a directory: the run's name in it", "out", filepath.Join(e.ws, "out", e.run+".jsonl")},
		{"home", "~/t.jsonl", filepath.Join(home, "t.jsonl")},
		{"absolute", abs, abs},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, n, err := e.svc.ExportFile(ctx, "20260101T000000-a", tc.path) // a prefix works
			if err != nil {
				t.Fatal(err)
			}
			if path != tc.want || n != 5 {
				t.Errorf("ExportFile(%q) = %s, %d events; want %s, 5", tc.path, path, n, tc.want)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			b, _ := os.ReadFile(path)
			if bytes.Contains(b, []byte(e.secret)) {
				t.Errorf("the export holds the secret in plain text:\n%s", b)
			}
			if !bytes.Contains(b, []byte("[REDACTED:")) {
				t.Errorf("the export has no redaction placeholder: the check above could not fail\n%s", b)
			}
			evs := lines(t, path)
			if len(evs) != n {
				t.Errorf("%d lines in the file, ExportFile said %d", len(evs), n)
			}
			var types []string
			for j, ev := range evs {
				types = append(types, fmt.Sprint(ev["type"]))
				if ev["run_id"] != e.run || ev["seq"] != float64(j+1) {
					t.Errorf("line %d: run_id %v seq %v, want %s %d", j+1, ev["run_id"], ev["seq"], e.run, j+1)
				}
			}
			if want := []string{"run_started", "user_message", "tool_call", "tool_result", "run_finished"}; !slices.Equal(types, want) {
				t.Errorf("types = %v, want %v", types, want)
			}
			rows := exportRows(t, e.st, e.run)
			if len(rows) != i+1 || !strings.Contains(rows[i].Detail, "to "+path+": 5 events") {
				t.Errorf("audit rows = %+v, want row %d naming %s", rows, i+1, path)
			}
			ents, _ := os.ReadDir(filepath.Dir(path))
			for _, ent := range ents {
				if ok, _ := filepath.Match(atomicfile.TempPattern(filepath.Base(path)), ent.Name()); ok {
					t.Errorf("a temporary file was left: %s", ent.Name())
				}
			}
		})
	}
}

// A first-time user names a directory that does not exist: a usage error
// that names the directory and the mkdir that fixes it, and nothing is
// written: no file, no directory, no audit row.
func TestExportFileMissingDirectoryWritesNothing(t *testing.T) {
	e := newExportEnv(t)
	before, _ := os.ReadDir(e.ws)
	for _, p := range []string{"exports/run.jsonl", filepath.Join(t.TempDir(), "no", "such", "run.jsonl")} {
		path, n, err := e.svc.ExportFile(context.Background(), e.run, p)
		var ue *UsageError
		var pe *ExportPathError
		if !errors.As(err, &ue) || !errors.As(err, &pe) || pe.Problem != ExportDirMissing {
			t.Fatalf("ExportFile(%q) = %q, %d, %v; want a usage error, ExportDirMissing", p, path, n, err)
		}
		dir := filepath.Dir(pe.Abs)
		if !filepath.IsAbs(p) && dir != filepath.Join(e.ws, "exports") {
			t.Errorf("the missing directory is %s, want it in the workspace", dir)
		}
		if want := "the directory " + dir + " does not exist: create it (mkdir -p " + dir + ") or fix the path"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
		if path != "" || n != 0 {
			t.Errorf("a failed export returned %q, %d", path, n)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the directory was created: %v", err)
		}
	}
	after, _ := os.ReadDir(e.ws)
	if len(after) != len(before) {
		t.Errorf("the workspace changed: %v, then %v", before, after)
	}
	if rows := exportRows(t, e.st, e.run); len(rows) != 0 {
		t.Errorf("a failed export was recorded: %+v", rows)
	}
}

// exportRun refuses a file path that names a directory (the command line's -o
// DIR) with the file name to give instead, and an unknown run with
// store.ErrNotFound; neither writes or records anything.
func TestExportRefusals(t *testing.T) {
	e := newExportEnv(t)
	ctx := context.Background()
	dir := t.TempDir()
	_, err := exportRun(ctx, e.st, e.run, ExportTarget{Path: dir}, ExportOptions{})
	var pe *ExportPathError
	if !errors.As(err, &pe) || pe.Problem != ExportPathIsDir || pe.Suggest != filepath.Join(dir, e.run+".jsonl") {
		t.Errorf("Export to a directory = %v (%+v), want ExportPathIsDir suggesting %s", err, pe, filepath.Join(dir, e.run+".jsonl"))
	}
	if _, err := exportRun(ctx, e.st, "20200101T000000-ffffff", ExportTarget{Path: filepath.Join(dir, "x.jsonl")}, ExportOptions{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Export of an unknown run = %v, want store.ErrNotFound", err)
	}
	if _, _, err := e.svc.ExportFile(ctx, "nope", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ExportFile of an unknown run = %v, want store.ErrNotFound", err)
	}
	if _, err := exportRun(ctx, e.st, e.run, ExportTarget{}, ExportOptions{}); err == nil {
		t.Errorf("Export with no target = nil error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused exports wrote %v", ents)
	}
	if rows := exportRows(t, e.st, e.run); len(rows) != 0 {
		t.Errorf("refused exports were recorded: %+v", rows)
	}
}

// An export stopped before it is written leaves an earlier file at the path
// as it was, and no temporary file.
func TestExportFileCancelledKeepsOldFile(t *testing.T) {
	e := newExportEnv(t)
	p := filepath.Join(e.ws, "trace.jsonl")
	if err := os.WriteFile(p, []byte("earlier export\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := e.svc.ExportFile(ctx, e.run, "trace.jsonl"); !errors.Is(err, context.Canceled) {
		t.Fatalf("ExportFile with a cancelled context = %v, want context.Canceled", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "earlier export\n" {
		t.Errorf("the earlier file now holds %q", b)
	}
	ents, _ := os.ReadDir(e.ws)
	for _, ent := range ents {
		if strings.Contains(ent.Name(), atomicfile.TempMarker) {
			t.Errorf("a temporary file was left: %s", ent.Name())
		}
	}
}

// To a writer (stdout), Export writes the same redacted lines and names the
// target in its result and the audit row. With [trace] sample = 0 in the
// workspace's project file, the export is metadata only: the tool output is
// a note with its size.
func TestExportToWriterMetadataOnly(t *testing.T) {
	e := newExportEnv(t)
	ctx := context.Background()
	var full bytes.Buffer
	res, err := exportRun(ctx, e.st, e.run, ExportTarget{W: &full}, ExportOptions{By: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Where != "stdout" || res.Events != 5 || res.Mode != ExportFull || res.Bytes != int64(full.Len()) {
		t.Errorf("result = %+v (%d bytes written)", res, full.Len())
	}
	if bytes.Contains(full.Bytes(), []byte(e.secret)) {
		t.Errorf("the export holds the secret in plain text")
	}
	if rows := exportRows(t, e.st, e.run); len(rows) != 1 || !strings.HasPrefix(rows[0].Detail, "by tester to stdout: 5 events") {
		t.Errorf("audit rows = %+v", rows)
	}

	if err := os.MkdirAll(filepath.Join(e.ws, ".agent"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".agent", "config.toml"), []byte("[trace]\nsample = 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var meta bytes.Buffer
	res, err = exportRun(ctx, e.st, e.run, ExportTarget{W: &meta, Name: "the TUI"}, ExportOptions{By: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ExportMetadataOnly || res.Where != "the TUI" || res.Events != 5 {
		t.Errorf("result = %+v, want metadata only to the TUI", res)
	}
	out := fmt.Sprintf("[omitted by trace sampling: %d bytes of tool output]", len(e.secret)+1)
	if !strings.Contains(meta.String(), out) {
		t.Errorf("the metadata-only export has no note %q:\n%s", out, meta.String())
	}
	if rows := exportRows(t, e.st, e.run); len(rows) != 2 || !strings.Contains(rows[1].Detail, "metadata only ([trace] sample = 0)") {
		t.Errorf("audit rows = %+v", rows)
	}
}

func TestSampledFull(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	full := 0
	for i := range 4000 {
		id := fmt.Sprintf("20260101T000000-%06x", i)
		if SampledFull(key, id, 0) || !SampledFull(key, id, 1) {
			t.Fatalf("sample 0 must never and 1 must always export in full (%s)", id)
		}
		v := SampledFull(key, id, 0.25)
		if v != SampledFull(key, id, 0.25) {
			t.Fatalf("not deterministic for %s", id)
		}
		if v {
			full++
			if !SampledFull(key, id, 0.5) {
				t.Fatalf("%s is full at 0.25 but not at 0.5: a higher sample must keep every run a lower one keeps", id)
			}
		}
	}
	if full < 880 || full > 1120 { // 1000 expected, ±5 sigma is about ±137
		t.Errorf("sample 0.25 chose %d of 4000 runs", full)
	}
	other := []byte("another install's key..........!")
	same := 0
	for i := range 400 {
		id := fmt.Sprintf("r%d", i)
		if SampledFull(key, id, 0.5) == SampledFull(other, id, 0.5) {
			same++
		}
	}
	if same > 280 {
		t.Errorf("two keys agree on %d of 400 runs: the choice does not depend on the key", same)
	}
}

func TestShrinkArguments(t *testing.T) {
	big := strings.Repeat("x", bigArgument+1)
	in := `{"path":"a/b.go","content":"` + big + `","note":"a && b"}`
	out := shrinkArguments(in)
	var m map[string]string
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	if m["path"] != "a/b.go" || m["note"] != "a && b" || m["content"] != fmt.Sprintf("[omitted by trace sampling: %d bytes]", len(big)) {
		t.Errorf("shrinkArguments = %s", out)
	}
	if strings.Contains(out, `\u0026`) {
		t.Errorf("arguments were HTML-escaped: %s", out)
	}
	small := `{"path":"z","command":"go test ./..."}`
	if got := shrinkArguments(small); got != small {
		t.Errorf("small arguments changed: %s", got)
	}
	if got := shrinkArguments("not json " + big); !strings.HasPrefix(got, "[omitted") {
		t.Errorf("big non-JSON arguments kept: %.40s", got)
	}
}

// /export PATH never replaces a file the person has; the run's own default
// file is written again.
func TestExportFileKeepsAnExistingFile(t *testing.T) {
	e := newExportEnv(t)
	s, runID := e.svc, e.run
	mine := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.ExportFile(context.Background(), runID, mine)
	var pe *ExportPathError
	if !errors.As(err, &pe) || pe.Problem != ExportFileExists || !strings.Contains(err.Error(), "give another path") {
		t.Fatalf("export over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
		t.Fatalf("the file was replaced: %q", b)
	}
	for i := 0; i < 2; i++ { // the default file, twice
		if _, _, err := s.ExportFile(context.Background(), runID, ""); err != nil {
			t.Fatalf("export %d to the default file: %v", i, err)
		}
	}
}
