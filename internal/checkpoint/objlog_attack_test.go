package checkpoint

import (
	"testing"
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
