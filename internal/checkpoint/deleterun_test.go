package checkpoint

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// goneWorkspace makes a workspace at <tmp>/gone/ws (so removing <tmp>/gone
// deletes it and a parent that was not there before) and returns both.
func goneWorkspace(t *testing.T) (ws, gone string) {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gone = filepath.Join(parent, "gone")
	ws = filepath.Join(gone, "ws")
	write(t, ws, "shared.txt", "in every snapshot\n")
	return ws, gone
}

// snapRun snapshots the workspace for run with a file only this run's
// snapshot holds (removed again afterwards).
func snapRun(t *testing.T, home, ws, run string) Snapshot {
	t.Helper()
	write(t, ws, run+".txt", "only in "+run+"\n")
	s, err := Open(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap := mustSnap(t, s, meta(run, "c1", KindAfter))
	if err := os.Remove(filepath.Join(ws, run+".txt")); err != nil {
		t.Fatal(err)
	}
	return snap
}

// packRef moves a run's loose head ref into packed-refs, as git pack-refs
// does.
func packRef(t *testing.T, gitDir, run string) {
	t.Helper()
	dir := filepath.Join(gitDir, "refs", "agent", "runs", run)
	b, err := os.ReadFile(filepath.Join(dir, "head"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(gitDir, "packed-refs")
	old, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		old = []byte("# pack-refs with: peeled fully-peeled sorted \n")
	} else if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(b)) + " " + refPrefix + run + "/head\n"
	if err := os.WriteFile(p, append(old, line...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}

// toEarlierLayout renames a run's head ref to refs/agent/runs/<run>/1, the
// one-ref-per-snapshot layout of earlier versions.
func toEarlierLayout(t *testing.T, gitDir, run string) {
	t.Helper()
	dir := filepath.Join(gitDir, "refs", "agent", "runs", run)
	if err := os.Rename(filepath.Join(dir, "head"), filepath.Join(dir, "1")); err != nil {
		t.Fatal(err)
	}
}

// onlyLeftover replaces a run's head ref by what a killed ref write leaves:
// a temporary file beside where the ref would be, and no ref.
func onlyLeftover(t *testing.T, gitDir, run string) {
	t.Helper()
	dir := filepath.Join(gitDir, "refs", "agent", "runs", run)
	if err := os.Rename(filepath.Join(dir, "head"), filepath.Join(dir, ".head.tmp-0123456789ab")); err != nil {
		t.Fatal(err)
	}
}

// With the workspace there, DeleteRunSnapshots deletes the run's refs and
// the objects only it reached; the other run keeps its snapshots, and
// deleting again is not an error.
func TestDeleteRunSnapshotsWorkspacePresent(t *testing.T) {
	home := t.TempDir()
	ws := newWorkspace(t)
	mine := snapRun(t, home, ws, "mine")
	other := snapRun(t, home, ws, "other")
	for range 2 {
		if err := DeleteRunSnapshots(home, ws, "mine"); err != nil {
			t.Fatal(err)
		}
	}
	s := openStore(t, home, ws)
	if runs, _ := s.Runs(); !reflect.DeepEqual(runs, []string{"other"}) {
		t.Errorf("runs left = %v, want [other]", runs)
	}
	if _, err := s.Get(mine.ID); err == nil {
		t.Errorf("the deleted run's snapshot %s is still readable", mine.ID)
	}
	if l, err := s.List("other"); err != nil || len(l) != 1 || l[0].ID != other.ID {
		t.Errorf("the other run's snapshots = %v, %v; want [%s]", l, err, other.ID)
	}
	blob := hashObject(plumbing.BlobObject, []byte("only in mine\n"))
	if s.st.HasEncodedObject(blob) == nil {
		t.Errorf("the blob only the deleted run reached is still stored")
	}
	fsck(t, s)
}

// With the workspace deleted, the repository goes whole when no other run
// has refs there (whatever layout the refs have); otherwise the workspace
// path is recreated for the prune, only this run's snapshots go, and the
// path is gone again afterwards.
func TestDeleteRunSnapshotsWorkspaceGone(t *testing.T) {
	tests := []struct {
		name     string
		other    bool                              // snapshot a second run "other" too
		layout   func(t *testing.T, gitDir string) // applied before the workspace is deleted
		repoGone bool
	}{
		{name: "only this run", repoGone: true},
		{name: "only this run, packed", layout: func(t *testing.T, g string) { packRef(t, g, "mine") }, repoGone: true},
		{name: "only this run, earlier layout", layout: func(t *testing.T, g string) { toEarlierLayout(t, g, "mine") }, repoGone: true},
		{name: "another run's dir holds only a killed write's leftover", other: true,
			layout: func(t *testing.T, g string) { onlyLeftover(t, g, "other") }, repoGone: true},
		{name: "another run remains", other: true},
		{name: "another run remains, packed", other: true, layout: func(t *testing.T, g string) { packRef(t, g, "other") }},
		{name: "another run remains in the earlier layout", other: true,
			layout: func(t *testing.T, g string) { toEarlierLayout(t, g, "other") }},
		{name: "this run packed, another loose", other: true, layout: func(t *testing.T, g string) { packRef(t, g, "mine") }},
		{name: "both packed", other: true, layout: func(t *testing.T, g string) { packRef(t, g, "mine"); packRef(t, g, "other") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			ws, gone := goneWorkspace(t)
			mine := snapRun(t, home, ws, "mine")
			var other Snapshot
			if tc.other {
				other = snapRun(t, home, ws, "other")
			}
			gitDir, err := findShadowRepo(home, ws)
			if err != nil || gitDir == "" {
				t.Fatalf("findShadowRepo = %q, %v", gitDir, err)
			}
			if tc.layout != nil {
				tc.layout(t, gitDir)
			}
			if err := os.RemoveAll(gone); err != nil {
				t.Fatal(err)
			}

			if err := DeleteRunSnapshots(home, ws, "mine"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(gone); !os.IsNotExist(err) {
				t.Errorf("the deleted workspace's path %s was left behind: %v", gone, err)
			}
			_, err = os.Stat(gitDir)
			if tc.repoGone {
				if !os.IsNotExist(err) {
					t.Errorf("the shadow repository of a gone workspace with no other run still exists: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the shadow repository holding another run was removed: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(gitDir, "packed-refs")); strings.Contains(string(b), "runs/mine/") {
				t.Errorf("packed-refs still names the deleted run:\n%s", b)
			}
			if err := DeleteRunSnapshots(home, ws, "mine"); err != nil {
				t.Errorf("deleting again: %v", err)
			}
			// The person recreates the workspace: the other run's
			// checkpoints are all there, the deleted run's are not.
			if err := os.MkdirAll(ws, 0o700); err != nil {
				t.Fatal(err)
			}
			s := openStore(t, home, ws)
			if runs, _ := s.Runs(); !reflect.DeepEqual(runs, []string{"other"}) {
				t.Errorf("runs left = %v, want [other]", runs)
			}
			if _, err := s.Get(mine.ID); err == nil {
				t.Errorf("the deleted run's snapshot %s is still readable", mine.ID)
			}
			if s.st.HasEncodedObject(hashObject(plumbing.BlobObject, []byte("only in mine\n"))) == nil {
				t.Errorf("the blob only the deleted run reached is still stored")
			}
			if got, err := s.Get(other.ID); err != nil || got.RunID != "other" {
				t.Errorf("the other run's snapshot: %+v, %v", got, err)
			}
			fsck(t, s)
		})
	}
}

// A run with no snapshots in the repository of a gone workspace changes
// nothing there.
func TestDeleteRunSnapshotsNotInRepository(t *testing.T) {
	home := t.TempDir()
	ws, gone := goneWorkspace(t)
	snapRun(t, home, ws, "other")
	gitDir, _ := findShadowRepo(home, ws)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, gitDir)
	if err := DeleteRunSnapshots(home, ws, "mine"); err != nil {
		t.Fatal(err)
	}
	if hashTree(t, gitDir) != before {
		t.Errorf("the repository changed for a run that has no snapshots in it")
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("the workspace path was recreated: %v", err)
	}
}

// A run that never took a checkpoint creates no shadow repository (nor the
// checkpoints directory) when it is deleted.
func TestDeleteRunSnapshotsNoRepository(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), "state"), t.TempDir()
	if err := DeleteRunSnapshots(home, ws, "mine"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("deleting a run without checkpoints created %s/checkpoints: %v", home, err)
	}
}

// shadowRuns counts only names of the ref layout, loose or packed; dot
// files (a killed write's leftovers) and other names are not refs.
func TestShadowRuns(t *testing.T) {
	const hash = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name         string
		loose        []string // paths under refs/agent/runs/
		packed       string   // packed-refs body
		others, mine bool
	}{
		{name: "empty"},
		{name: "mine head", loose: []string{"mine/head"}, mine: true},
		{name: "mine earlier layout", loose: []string{"mine/1", "mine/2"}, mine: true},
		{name: "other head", loose: []string{"other/head"}, others: true},
		{name: "both", loose: []string{"mine/head", "other/3"}, others: true, mine: true},
		{name: "leftovers only", loose: []string{"mine/.head.tmp-0a1b2c", "other/.head.tmp-3d4e5f"}},
		{name: "leftover beside a ref", loose: []string{"other/.head.tmp-3d4e5f", "other/head"}, others: true},
		{name: "not ref names", loose: []string{"other/0", "other/-1", "other/head.lock", "other/notes"}},
		{name: "empty run dir", loose: []string{"other/"}},
		{name: "packed", packed: "# pack-refs with: peeled fully-peeled sorted \n" +
			hash + " refs/agent/runs/mine/head\n" + hash + " refs/agent/runs/other/7\n^" + hash + "\n",
			others: true, mine: true},
		{name: "packed, other namespaces", packed: hash + " refs/heads/main\n" + hash + " refs/agent/runs/head\n" +
			hash + " refs/agent/runs/other/.head.tmp-1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gitDir := t.TempDir()
			for _, p := range tc.loose {
				full := filepath.Join(gitDir, "refs", "agent", "runs", filepath.FromSlash(p))
				if strings.HasSuffix(p, "/") {
					if err := os.MkdirAll(full, 0o700); err != nil {
						t.Fatal(err)
					}
					continue
				}
				write(t, filepath.Dir(full), filepath.Base(full), hash+"\n")
			}
			if tc.packed != "" {
				write(t, gitDir, "packed-refs", tc.packed)
			}
			others, mine, err := shadowRuns(gitDir, "mine")
			if err != nil {
				t.Fatal(err)
			}
			if others != tc.others || mine != tc.mine {
				t.Errorf("shadowRuns = others %v, mine %v; want %v, %v", others, mine, tc.others, tc.mine)
			}
		})
	}
}
