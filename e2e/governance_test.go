package e2e

import (
	"bytes"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofrs/flock"
)

// Trace governance: agent runs rm / prune remove a run from everywhere, the
// audit log keeps that it happened, and the state is private.

// shadowObjects is every object of the shadow repositories (loose or in
// packs), as `git cat-file --batch-all-objects --batch` prints them.
func shadowObjects(t *testing.T, home string) [][]byte {
	t.Helper()
	var out [][]byte
	repos, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*.git"))
	for _, repo := range repos {
		cmd := exec.Command("git", "--git-dir="+repo, "cat-file", "--batch-all-objects", "--batch")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("git cat-file --batch-all-objects in %s: %v", repo, err)
		}
		out = append(out, b)
	}
	return out
}

func objectsContain(t *testing.T, home, s string) bool {
	t.Helper()
	for _, o := range shadowObjects(t, home) {
		if bytes.Contains(o, []byte(s)) {
			return true
		}
	}
	return false
}

// shadowRefs lists the refs (loose and packed) of every shadow repository.
func shadowRefs(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	repos, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*.git"))
	for _, repo := range repos {
		_ = filepath.WalkDir(filepath.Join(repo, "refs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(repo, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if b, err := os.ReadFile(filepath.Join(repo, "packed-refs")); err == nil {
			out = append(out, strings.Split(string(b), "\n")...)
		}
	}
	return out
}

func dbBytesContain(t *testing.T, home, s string) []string {
	t.Helper()
	var hits []string
	for _, f := range []string{"agent.db", "agent.db-wal", "agent.db-shm"} {
		b, err := os.ReadFile(filepath.Join(home, f))
		if err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, f)
		}
	}
	return hits
}

func randMark(prefix string) string { return prefix + "-" + hex.EncodeToString(rb(10)) }

// runWriting runs a prompt carrying mark whose one call writes content to
// file (so the run has checkpoints), and returns the run id.
func (e *env) runWriting(mark, file, content string) string {
	e.t.Helper()
	e.serve(script(
		turn("", call("w1", "write_file", map[string]any{"path": file, "content": content + "\n"})),
		turn("Wrote "+file+" for "+mark+"."),
	))
	r := e.run("run", "--approval", "full-auto", "write "+file+" and remember "+mark)
	if r.code != 0 {
		e.t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	return runID(e.t, r.stderr)
}

func (e *env) runIDs() []string {
	var runs []struct {
		RunID string `json:"run_id"`
	}
	e.mustJSON(&runs, "runs", "--json")
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
	}
	return ids
}

// agent runs rm refuses a run a live process holds, deletes nothing when
// one id is refused, and otherwise removes the run from the listing, the
// trace, the database bytes and the shadow repository (its refs and the
// objects only it reached), keeping in the audit log that it was exported
// and deleted, without its content.
func TestRunsRmLeavesNoTrace(t *testing.T) {
	e := newEnv(t, "")
	markA, markB := randMark("prompt"), randMark("prompt")
	contentA, contentB := randMark("content"), randMark("content")
	a := e.runWriting(markA, "a.txt", contentA)
	if err := os.Remove(filepath.Join(e.ws, "a.txt")); err != nil { // so b's snapshots do not hold it
		t.Fatal(err)
	}
	b := e.runWriting(markB, "b.txt", contentB)

	exFile := filepath.Join(t.TempDir(), "a.jsonl")
	if r := e.run("export", a, "-o", exFile); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	// Before: everything the checks below look for is there to find.
	if hits := dbBytesContain(t, e.home, markA); len(hits) == 0 {
		t.Fatalf("run a's prompt is in no database file before rm: the check after rm could not fail")
	}
	if !objectsContain(t, e.home, contentA) {
		t.Fatalf("run a's written content is in no shadow repository object before rm")
	}
	lockA := filepath.Join(e.home, "locks", a+".lock")
	if _, err := os.Stat(lockA); err != nil {
		t.Fatalf("run a has no lock file to remove: %v", err)
	}

	// A live process holds a's lock: refused, and b (named first) is kept too.
	held := flock.New(lockA)
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatalf("take the lock: %v %v", ok, err)
	}
	r := e.run("runs", "rm", b, a)
	if r.code != 2 || !strings.Contains(r.stderr, a) || !strings.Contains(r.stderr, "in use") {
		t.Errorf("rm of a locked run: exit %d, stderr %q; want exit 2 naming the run in use", r.code, r.stderr)
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if ids := strings.Join(e.runIDs(), " "); !strings.Contains(ids, a) || !strings.Contains(ids, b) {
		t.Fatalf("a refused rm deleted something: runs = %s", ids)
	}
	if r := e.run("runs", "rm", a, "20200101T000000-ffffff"); r.code != 2 || !strings.Contains(r.stderr, "nothing deleted") {
		t.Errorf("rm with an unknown id: exit %d, stderr %q; want exit 2, nothing deleted", r.code, r.stderr)
	}

	r = e.run("runs", "rm", a)
	if r.code != 0 || !strings.Contains(r.stdout, "deleted run "+a) {
		t.Fatalf("rm: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if ids := e.runIDs(); len(ids) != 1 || ids[0] != b {
		t.Errorf("runs after rm = %v, want only %s", ids, b)
	}
	if r := e.run("trace", a); r.code != 2 {
		t.Errorf("trace of the deleted run: exit %d, want 2 (not found)", r.code)
	}
	if hits := dbBytesContain(t, e.home, markA); len(hits) > 0 {
		t.Errorf("the deleted run's prompt is still readable in %v", hits)
	}
	if hits := dbBytesContain(t, e.home, markB); len(hits) == 0 {
		t.Errorf("the kept run's prompt is in no database file")
	}
	for _, ref := range shadowRefs(t, e.home) {
		if strings.Contains(ref, a) {
			t.Errorf("shadow repository still has ref %s of the deleted run", ref)
		}
	}
	if objectsContain(t, e.home, contentA) {
		t.Errorf("a shadow repository object still holds the content only the deleted run wrote")
	}
	if !objectsContain(t, e.home, contentB) {
		t.Errorf("rm lost the kept run's snapshot objects")
	}
	if _, err := os.Stat(lockA); !os.IsNotExist(err) {
		t.Errorf("lock file of the deleted run: %v, want it removed", err)
	}
	var cps []map[string]any
	e.mustJSON(&cps, "checkpoints", b, "--json")
	if len(cps) != 2 {
		t.Errorf("the kept run has %d checkpoints, want 2", len(cps))
	}

	var actions []string
	for _, row := range e.audit(a) {
		actions = append(actions, row.Action)
		if strings.Contains(row.Detail, markA) || strings.Contains(row.Detail, contentA) {
			t.Errorf("audit row %s holds the deleted run's content: %q", row.Action, row.Detail)
		}
		if row.Action == "delete" && !strings.Contains(row.Detail, "events") {
			t.Errorf("delete audit row %q does not say how many events", row.Detail)
		}
		if row.Action == "export" && !strings.Contains(row.Detail, exFile) {
			t.Errorf("export audit row %q does not name the file", row.Detail)
		}
	}
	if got := strings.Join(actions, ","); !strings.HasSuffix(got, "export,delete") {
		t.Errorf("audit of the deleted run = %s, want its export then its deletion last", got)
	}
}

// agent runs prune deletes the runs idle longer than --older-than, and
// only those; --dry-run deletes nothing; the flag is required.
func TestRunsPruneOlderThan(t *testing.T) {
	e := newEnv(t, "")
	old := e.runWriting(randMark("old"), "old.txt", randMark("content"))
	fresh := e.runWriting(randMark("fresh"), "fresh.txt", randMark("content"))
	db := openDB(t, e.home)
	if _, err := db.Exec(`UPDATE runs SET updated = '2020-01-01T00:00:00Z' WHERE id = ?`, old); err != nil {
		t.Fatal(err)
	}
	db.Close()

	if r := e.run("runs", "prune"); r.code != 2 || !strings.Contains(r.stderr, "--older-than") {
		t.Errorf("prune without --older-than: exit %d, stderr %q; want exit 2 naming the flag", r.code, r.stderr)
	}
	if r := e.run("runs", "prune", "--older-than", "30d"); r.code != 2 || !strings.Contains(r.stderr, "720h") {
		t.Errorf("prune --older-than 30d: exit %d, stderr %q; want exit 2 showing a valid duration", r.code, r.stderr)
	}
	r := e.run("runs", "prune", "--older-than", "720h", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, old) || strings.Contains(r.stdout, fresh) {
		t.Errorf("dry run: exit %d, stdout %q; want only %s listed", r.code, r.stdout, old)
	}
	if n := len(e.runIDs()); n != 2 {
		t.Fatalf("the dry run deleted runs: %d left", n)
	}
	r = e.run("runs", "prune", "--older-than", "720h")
	if r.code != 0 || !strings.Contains(r.stdout, "deleted run "+old) {
		t.Fatalf("prune: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if ids := e.runIDs(); len(ids) != 1 || ids[0] != fresh {
		t.Errorf("runs after prune = %v, want only %s", ids, fresh)
	}
	rows := e.audit(old)
	if len(rows) == 0 || rows[len(rows)-1].Action != "delete" || !strings.Contains(rows[len(rows)-1].Detail, "prune") {
		t.Errorf("audit of the pruned run = %+v, want a delete row naming prune", rows)
	}
}

// The state directory is private: 0700, the database and exports 0600; a
// database that group or others can read is refused with a message naming
// the chmod that fixes it.
func TestStateFilesArePrivate(t *testing.T) {
	e := newEnv(t, "")
	id := e.runWriting(randMark("p"), "p.txt", "x")
	exFile := filepath.Join(t.TempDir(), "p.jsonl")
	if r := e.run("export", id, "-o", exFile); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	for p, want := range map[string]os.FileMode{e.home: 0o700, filepath.Join(e.home, "agent.db"): 0o600,
		filepath.Join(e.home, "redact.key"): 0o600, exFile: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %#o", p, fi.Mode().Perm(), err, want)
		}
	}
	if err := os.Chmod(filepath.Join(e.home, "agent.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs"}, {"trace", id}, {"export", id}, {"runs", "rm", id}} {
		r := e.run(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "chmod") {
			t.Errorf("agent %v with a 0644 database: exit %d, stderr %q; want exit 2 naming chmod", args, r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("agent %v with a 0644 database printed %q", args, r.stdout)
		}
	}
}

// [trace] retention prunes runs idle longer than it when agent run starts.
func TestRetentionPrunesOnStart(t *testing.T) {
	e := newEnv(t, script(turn("first"), turn("second")))
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "agent"), 0o700)
	os.WriteFile(filepath.Join(cfg, "agent", "config.toml"), []byte("[trace]\nretention = \"24h\"\n"), 0o600)
	xdg := []string{"XDG_CONFIG_HOME=" + cfg}
	r := e.runEnv(xdg, "run", "--approval", "read-only", "old run")
	old := runID(t, r.stderr)
	db := openDB(t, e.home)
	if _, err := db.Exec(`UPDATE runs SET started = '2026-01-01T00:00:00Z', updated = '2026-01-01T00:00:00Z' WHERE id = ?`, old); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r = e.runEnv(xdg, "run", "--approval", "read-only", "new run")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "run: ") {
		t.Fatalf("exit %d; stderr must still start with the run id:\n%s", r.code, r.stderr)
	}
	var runs []struct {
		RunID string `json:"run_id"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 1 || runs[0].RunID == old {
		t.Errorf("runs after retention = %+v, want only the new run", runs)
	}
	rows := e.audit(old)
	if len(rows) == 0 || rows[len(rows)-1].Action != "delete" || !strings.Contains(rows[len(rows)-1].Detail, "retention") {
		t.Errorf("audit of the expired run = %+v", rows)
	}
}
