package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// Two stores of one workspace (the TUI and a worker, or a second agent
// process): the second one's snapshot reuses the trees and blobs the first
// one holds only in its live object log. When the second one's log is
// folded (it settles, or it was killed and the next opener folds it), its
// refs must not name objects that are in no pack: git fsck on the shadow
// repository passes while the first store is still live and unsettled,
// and after it is killed too.
func TestFoldedRefsNeedNoLiveLog(t *testing.T) {
	if !hasGit() {
		t.Skip("no git")
	}
	ws := newWorkspace(t)
	home := t.TempDir()
	a := openStore(t, home, ws)
	write(t, ws, "shared.txt", "only in a's log\n")
	mustSnap(t, a, meta("runa", "1", KindAfter))
	if a.logs.own == nil {
		t.Fatal("a has no object log")
	}
	b := openStore(t, home, ws)
	sb := mustSnap(t, b, meta("runb", "1", KindAfter))
	if err := b.Settle(); err != nil {
		t.Fatal(err)
	}
	// a is live and has not settled: git must still see runb whole.
	gitCmd(t, "", nil, "--git-dir="+b.GitDir(), "fsck", "--strict", "--no-dangling")
	if _, err := readSnapFile(b, sb.ID, "shared.txt"); err != nil {
		t.Fatal(err)
	}
	// b killed instead of settled: the next opener folds its log.
	write(t, ws, "second.txt", "again only in a's log\n")
	mustSnap(t, a, meta("runa", "2", KindAfter))
	c := openStore(t, home, ws)
	mustSnap(t, c, meta("runc", "1", KindAfter))
	crashStore(t, c)
	d := openStore(t, home, ws)
	gitCmd(t, "", nil, "--git-dir="+d.GitDir(), "fsck", "--strict", "--no-dangling")
	crashStore(t, a)
	e := openStore(t, home, ws)
	fsck(t, e)
}

// A log planted in the repository (by another local process, or left by a
// broken disk) whose records pass their crc but name a head that is no
// commit here: it neither stops the next Open (the agent would refuse to
// start) nor becomes a ref git cannot follow; the run's real head stays.
func TestPlantedLogHeadNamingNoCommit(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	s := openStore(t, home, ws)
	snap := mustSnap(t, s, meta("real", "1", KindAfter))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	gitDir := s.GitDir()
	var bogus plumbing.Hash
	copy(bogus[:], "no such commit here!")
	buf := []byte(logMagic)
	buf = appendRecord(buf, recHead, bogus, []byte("real"))
	buf = appendRecord(buf, recHead, bogus, []byte("ghost"))
	if err := os.WriteFile(filepath.Join(gitDir, "agent", logPrefix+"planted"), buf, 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(home, ws)
	if err != nil {
		t.Fatalf("a planted log stops Open: %v", err)
	}
	t.Cleanup(func() { _ = s2.Close() })
	if h, err := s2.Head("real"); err != nil || h.ID != snap.ID {
		t.Fatalf("head of real = %v, %v; want %s", h.ID, err, snap.ID[:8])
	}
	if _, err := s2.st.Reference(headRefName("ghost")); err == nil {
		t.Error("a head naming no commit became a ref")
	}
	fsck(t, s2)
}

// A dead log that cannot be folded (here: its run's ref cannot be
// written) stops Open with an error that names the log and what to do,
// and the log stays.
func TestUnfoldableLogErrorNamesTheFix(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	s := openStore(t, home, ws)
	write(t, ws, "new.txt", "only in the log\n")
	mustSnap(t, s, meta("r", "1", KindAfter))
	logPath := crashStore(t, s)
	refDir := filepath.Join(s.GitDir(), filepath.FromSlash(refPrefix), "r")
	if err := os.RemoveAll(refDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(refDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(refDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(home, ws)
	if err == nil {
		t.Fatal("Open folded a log whose ref cannot be written")
	}
	if !strings.Contains(err.Error(), logPath) || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("error %q does not name the log and the fix", err)
	}
	if _, serr := os.Stat(logPath); serr != nil {
		t.Fatalf("the log is gone after a failed fold: %v", serr)
	}
	// The fix as the error words it: moved aside, the log is not read.
	aside := filepath.Join(filepath.Dir(logPath), "broken-"+filepath.Base(logPath))
	if !strings.Contains(err.Error(), "mv "+logPath+" "+aside) {
		t.Fatalf("error %q does not say where to move the log", err)
	}
	if err := os.Rename(logPath, aside); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(home, ws)
	if err != nil {
		t.Fatalf("Open with the log moved aside: %v", err)
	}
	_ = s2.Close()
	if _, err := os.Stat(aside); err != nil {
		t.Fatalf("the log moved aside was taken: %v", err)
	}
}
