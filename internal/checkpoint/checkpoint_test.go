package checkpoint

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestSnapshotContents(t *testing.T) {
	ws := newWorkspace(t)
	big := filepath.Join(ws, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, t.TempDir(), ws)
	snap := mustSnap(t, s, meta("run1", "call_1", KindBefore))
	if !reflect.DeepEqual(snap.Skipped, []string{"big.bin"}) {
		t.Fatalf("skipped = %v", snap.Skipped)
	}
	if snap.Seq != 1 || snap.Parent != "" || snap.RunID != "run1" || snap.CallID != "call_1" {
		t.Fatalf("snapshot = %+v", snap)
	}
	got, err := s.Get(snap.ID[:10])
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != snap.ID || got.Tree != snap.Tree || !reflect.DeepEqual(got.Skipped, snap.Skipped) || got.Kind != KindBefore {
		t.Fatalf("Get = %+v, want %+v", got, snap)
	}
	if fi, err := os.Stat(s.GitDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("git dir perms: %v %v", fi.Mode(), err)
	}
	if !hasGit() {
		return
	}
	want := []string{
		"100644 .gitignore", "100644 a.txt", "100644 dir/.gitignore", "100644 dir/b.txt",
		"100644 dir/keep.log", "100644 dir/sub/c.txt", "120000 link", "100755 script.sh",
	}
	if got := lsTree(t, s, snap.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("ls-tree:\n%v\nwant\n%v", got, want)
	}
	if link := gitCmd(t, "", nil, "--git-dir="+s.GitDir(), "cat-file", "-p", snap.ID+":link"); link != "a.txt" {
		t.Fatalf("symlink blob = %q", link)
	}
	msg := gitCmd(t, "", nil, "--git-dir="+s.GitDir(), "log", "-1", "--format=%B", "refs/agent/runs/run1/head")
	for _, w := range []string{"Agent-Run: run1", "Agent-Call: call_1", "Agent-Kind: before", "Agent-Seq: 1", "Agent-Skipped: big.bin"} {
		if !strings.Contains(msg, w) {
			t.Fatalf("message %q lacks %q", msg, w)
		}
	}
	fsck(t, s)
}

func TestRollbackRoundTrip(t *testing.T) {
	ws := newWorkspace(t)
	var userGit string
	if hasGit() {
		userGit = hashTree(t, filepath.Join(ws, ".git"))
	}
	big := filepath.Join(ws, "big.bin")
	if err := os.WriteFile(big, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+10); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, t.TempDir(), ws)
	before := mustSnap(t, s, meta("r", "c1", KindBefore))

	// A tool edits and creates files; the run records them incrementally.
	write(t, ws, "a.txt", "alpha edited\n")
	write(t, ws, "tool/new.txt", "created by a tool\n")
	if err := os.Remove(filepath.Join(ws, "dir/b.txt")); err != nil {
		t.Fatal(err)
	}
	after1, err := s.SnapshotPaths(bg, before, []string{"a.txt", "tool/new.txt", filepath.Join(ws, "dir/b.txt")}, meta("r", "c1", KindAfter))
	if err != nil {
		t.Fatal(err)
	}
	// A shell command changes things nobody lists.
	write(t, ws, "out/gen/made.txt", "made by a command\n")
	write(t, ws, "x.log", "ignored, changed\n")
	write(t, ws, "dir/local.cfg", "ignored, changed\n")
	if err := os.Remove(filepath.Join(ws, "dir/sub/c.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(ws, "script.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "link", "now a file\n")
	if err := os.WriteFile(big, []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+20); err != nil {
		t.Fatal(err)
	}
	after2 := mustSnap(t, s, meta("r", "c2", KindAfter))
	if after2.Parent != after1.ID || after1.Parent != before.ID || after2.Seq != 3 {
		t.Fatalf("chain: %+v %+v %+v", before, after1, after2)
	}

	pre, changes, err := s.Rollback(bg, before.ID, Meta{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if pre.Kind != KindRollback || pre.Tree != after2.Tree || pre.Parent != after2.ID {
		t.Fatalf("pre = %+v", pre)
	}
	wantChanges := []Change{
		{Path: "a.txt", Action: ActionModified}, {Path: "dir/b.txt", Action: ActionAdded}, {Path: "dir/sub/c.txt", Action: ActionAdded},
		{Path: "link", Action: ActionModified}, {Path: "out/gen/made.txt", Action: ActionDeleted}, {Path: "script.sh", Action: ActionModified},
		{Path: "tool/new.txt", Action: ActionDeleted},
	}
	if !reflect.DeepEqual(changes, wantChanges) {
		t.Fatalf("changes = %v", changes)
	}
	if read(t, ws, "a.txt") != "alpha\n" || read(t, ws, "dir/b.txt") != "bravo\n" || read(t, ws, "dir/sub/c.txt") != "charlie\n" {
		t.Fatal("files not restored")
	}
	if exists(ws, "tool") || exists(ws, "out") {
		t.Fatal("created files or their directories left behind")
	}
	if read(t, ws, "x.log") != "ignored, changed\n" || read(t, ws, "dir/local.cfg") != "ignored, changed\n" {
		t.Fatal("ignored files touched")
	}
	if fi, err := os.Stat(big); err != nil || fi.Size() != MaxFileSize+20 {
		t.Fatal("left-out file touched")
	}
	if fi, _ := os.Stat(filepath.Join(ws, "script.sh")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("exec bit not restored: %v", fi.Mode())
	}
	if l, err := os.Readlink(filepath.Join(ws, "link")); err != nil || l != "a.txt" {
		t.Fatalf("symlink not restored: %q %v", l, err)
	}
	if again := mustSnap(t, s, meta("check", "", KindAfter)); again.Tree != before.Tree {
		t.Fatal("workspace after rollback differs from the snapshot")
	}

	// Rolling back the rollback brings the later state back.
	if _, _, err := s.Rollback(bg, pre.ID, Meta{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if read(t, ws, "a.txt") != "alpha edited\n" || exists(ws, "dir/b.txt") || read(t, ws, "out/gen/made.txt") != "made by a command\n" {
		t.Fatal("rollback of the rollback did not restore the later state")
	}
	if again := mustSnap(t, s, meta("check", "", KindAfter)); again.Tree != after2.Tree {
		t.Fatal("workspace after second rollback differs")
	}
	list, err := s.List("r")
	if err != nil || len(list) != 5 || list[0].ID != before.ID || list[4].Kind != KindRollback {
		t.Fatalf("List = %v %v", list, err)
	}
	if userGit != "" && hashTree(t, filepath.Join(ws, ".git")) != userGit {
		t.Fatal("the user's .git changed")
	}
	fsck(t, s)
}

func TestRestoreKeepsIgnoredAtTargetPath(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	write(t, ws, "cfg.txt", "v1\n")
	first := mustSnap(t, s, meta("r", "", KindBefore))
	write(t, ws, ".gitignore", "*.log\nbuild/\ncfg.txt\n")
	write(t, ws, "cfg.txt", "private, now ignored\n")
	changes, err := s.Restore(bg, first.ID, Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(changes, Change{Path: "cfg.txt", Action: ActionKept, Reason: reasonInTheWay}) || !slices.Contains(changes, Change{Path: ".gitignore", Action: ActionModified}) {
		t.Fatalf("changes = %v", changes)
	}
	if read(t, ws, "cfg.txt") != "private, now ignored\n" {
		t.Fatal("ignored file overwritten")
	}
}

func TestSnapshotPathsMatchesFullScan(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	base := mustSnap(t, s, meta("r", "c0", KindBefore))
	steps := []struct {
		name    string
		do      func()
		changed []string
	}{
		{"edit", func() { write(t, ws, "dir/b.txt", "bravo 2\n") }, []string{"dir/b.txt"}},
		{"create nested", func() { write(t, ws, "n1/n2/n3.txt", "deep\n") }, []string{"n1/n2/n3.txt"}},
		{"delete last in dir", func() { _ = os.Remove(filepath.Join(ws, "dir/sub/c.txt")) }, []string{"dir/sub/c.txt"}},
		{"chmod", func() { _ = os.Chmod(filepath.Join(ws, "a.txt"), 0o755) }, []string{"./a.txt"}},
		{"file to symlink", func() {
			_ = os.Remove(filepath.Join(ws, "a.txt"))
			_ = os.Symlink("dir/b.txt", filepath.Join(ws, "a.txt"))
		}, []string{"a.txt"}},
		{"ignored", func() { write(t, ws, "dir/local.x", "no\n") }, []string{"dir/local.x"}},
		{"big", func() {
			write(t, ws, "dir/big", "")
			_ = os.Truncate(filepath.Join(ws, "dir/big"), MaxFileSize+1)
		}, []string{"dir/big"}},
		{"big shrinks", func() { write(t, ws, "dir/big", "small\n") }, []string{"dir/big"}},
		{"new dir", func() {
			write(t, ws, "nd/x.txt", "x\n")
			write(t, ws, "nd/y/z.txt", "z\n")
			write(t, ws, "nd/y/skip.log", "ignored\n")
		}, []string{"nd"}},
		{"remove dir", func() { _ = os.RemoveAll(filepath.Join(ws, "n1")) }, []string{"n1"}},
		{"gitignore", func() { write(t, ws, ".gitignore", "*.log\n") }, []string{".gitignore"}},
		{"nothing", func() {}, nil},
	}
	other := openStore(t, t.TempDir(), ws) // full scans, independent caches
	for i, st := range steps {
		st.do()
		inc, err := s.SnapshotPaths(bg, base, st.changed, meta("r", "c", KindAfter))
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		full := mustSnap(t, other, meta("full", "", KindAfter))
		if inc.Tree != full.Tree || !reflect.DeepEqual(inc.Skipped, full.Skipped) {
			t.Fatalf("step %d %s: incremental %s %v != full %s %v", i, st.name, inc.Tree, inc.Skipped, full.Tree, full.Skipped)
		}
		base = inc
	}
	fsck(t, s)
}

func TestDiffAndPatch(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	a := mustSnap(t, s, meta("r", "", KindBefore))
	write(t, ws, "a.txt", "alpha\nmore\n")
	_ = os.RemoveAll(filepath.Join(ws, "dir/sub"))
	write(t, ws, "dir/sub", "now a file\n")
	write(t, ws, "z.txt", "zulu\n")
	b := mustSnap(t, s, meta("r", "", KindAfter))
	d, err := s.Diff(bg, a.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: "a.txt", Action: ActionModified}, {Path: "dir/sub", Action: ActionAdded}, {Path: "dir/sub/c.txt", Action: ActionDeleted}, {Path: "z.txt", Action: ActionAdded}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("diff = %v", d)
	}
	p, err := s.Patch(bg, a.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"diff --git a/a.txt b/a.txt", "+more", "+zulu", "-charlie"} {
		if !strings.Contains(p, w) {
			t.Fatalf("patch lacks %q:\n%s", w, p)
		}
	}
	if all, err := s.Diff(bg, "", a.Tree); err != nil || len(all) != 8 {
		t.Fatalf("diff from empty: %v %v", all, err)
	}
}

func TestDeleteRunPrunes(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	s := openStore(t, home, ws)
	keep := mustSnap(t, s, meta("keep", "", KindBefore))
	write(t, ws, "only-in-gone.txt", "unique content 8d1f\n")
	// Another process sharing the repository records the file in a run that
	// is then deleted: its caches know the blob.
	s2 := openStore(t, home, ws)
	gone := mustSnap(t, s2, meta("gone", "", KindAfter))
	blob := hashObject(plumbing.BlobObject, []byte("unique content 8d1f\n"))
	if !s2.hasObject(blob) {
		t.Fatal("blob not stored")
	}
	// While s2's object log holds the run's head, deleting it is refused
	// with the fix (the other process would write the head back).
	if err := s.DeleteRun("gone"); err == nil || !strings.Contains(err.Error(), "end that session") {
		t.Fatalf("DeleteRun of a run another live store holds = %v; want a refusal naming the fix", err)
	}
	if l, err := s.List("gone"); err != nil || len(l) != 1 {
		t.Fatalf("after the refusal: %v, %v; want the run intact", l, err)
	}
	// The other process's stretch of the run ends: its log is folded.
	if err := s2.Settle(); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRun("gone"); err != nil {
		t.Fatal(err)
	}
	if s.st.HasEncodedObject(blob) == nil || s.st.HasEncodedObject(plumbing.NewHash(gone.ID)) == nil {
		t.Fatal("unreachable objects not pruned")
	}
	if hasGit() && exec.Command("git", "--git-dir="+s.GitDir(), "cat-file", "-e", blob.String()).Run() == nil {
		t.Fatal("git still finds the pruned blob")
	}
	if l, _ := s.List("gone"); len(l) != 0 {
		t.Fatalf("run still listed: %v", l)
	}
	if runs, _ := s.Runs(); !reflect.DeepEqual(runs, []string{"keep"}) {
		t.Fatalf("runs = %v", runs)
	}
	if _, err := s.Get(keep.ID); err != nil {
		t.Fatal(err)
	}
	// The other store's caches must not make it reference the pruned blob.
	again := mustSnap(t, s2, meta("keep", "", KindAfter))
	if again.Parent != keep.ID {
		t.Fatalf("parent = %s", again.Parent)
	}
	settle(t, s2)
	if s2.st.HasEncodedObject(blob) != nil {
		t.Fatal("re-snapshot did not store the pruned blob again")
	}
	inc, err := s2.SnapshotPaths(bg, again, []string{"a.txt"}, meta("keep", "", KindAfter))
	if err != nil || inc.Tree != again.Tree {
		t.Fatalf("incremental after prune: %v", err)
	}
	fsck(t, s)
}

func TestConcurrentRunsShareRepository(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	stores := []*Store{openStore(t, home, ws), openStore(t, home, ws)}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := []string{"ra", "rb"}[i]
			prev := Snapshot{}
			for n := 0; n < 10; n++ {
				var err error
				if prev.ID == "" {
					prev, err = s.Snapshot(bg, meta(run, "", KindBefore))
				} else {
					prev, err = s.SnapshotPaths(bg, prev, []string{"a.txt"}, meta(run, "", KindAfter))
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range []string{"ra", "rb"} {
		if l, err := stores[0].List(run); err != nil || len(l) != 10 {
			t.Fatalf("%s: %d %v", run, len(l), err)
		}
	}
	fsck(t, stores[0])
}

func TestBadInput(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	if _, err := s.Snapshot(bg, Meta{RunID: "../x"}); err == nil {
		t.Fatal("bad run id accepted")
	}
	base := mustSnap(t, s, meta("r", "", KindBefore))
	if _, err := s.SnapshotPaths(bg, base, []string{"../outside"}, meta("r", "", KindAfter)); err == nil {
		t.Fatal("path outside the workspace accepted")
	}
	if _, err := s.Get("zzzz"); err == nil {
		t.Fatal("bad id accepted")
	}
	if _, _, err := s.Rollback(bg, strings.Repeat("0", 40), Meta{RunID: "r"}); err == nil {
		t.Fatal("rollback to a missing snapshot accepted")
	}
	if l, _ := s.List("r"); len(l) != 1 {
		t.Fatal("failed rollback recorded a snapshot")
	}
	m := meta("r", "call \"quoted\"\nnewline", KindAfter)
	snap := mustSnap(t, s, m)
	s.snaps = map[plumbing.Hash]Snapshot{}
	if got, err := s.Get(snap.ID); err != nil || got.CallID != m.CallID {
		t.Fatalf("call id round trip: %q %v", got.CallID, err)
	}
}

func TestAgentHomeInsideWorkspaceIsNotSnapshotted(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, filepath.Join(ws, "state"), ws)
	snap := mustSnap(t, s, meta("r", "", KindBefore))
	write(t, ws, "state/other.txt", "x\n")
	again, err := s.SnapshotPaths(bg, snap, []string{"state/other.txt"}, meta("r", "", KindAfter))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{snap.ID, again.ID} {
		if _, ok, _ := s.lookup(plumbing.NewHash(mustGet(t, s, id).Tree), "state"); ok {
			t.Fatal("agent home in the snapshot")
		}
	}
}

func mustGet(t *testing.T, s *Store, id string) Snapshot {
	t.Helper()
	snap, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
