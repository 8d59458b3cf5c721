package checkpoint

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

func propSeed(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("CHECKPOINT_PROP_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (CHECKPOINT_PROP_SEED to repeat)", seed)
	return seed
}

// packFiles lists the names in objects/pack.
func packFiles(t *testing.T, gitDir string) map[string]bool {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range ents {
		out[e.Name()] = true
	}
	return out
}

// readSnapFile reads one file of a snapshot through the store.
func readSnapFile(s *Store, id, rel string) ([]byte, error) {
	var data []byte
	found := false
	err := s.Files(bg, id, func(f File) error {
		if f.Path == rel {
			data, found = f.Data, true
		}
		return nil
	})
	if err == nil && !found {
		err = fmt.Errorf("%s: not in snapshot %s", rel, id)
	}
	return data, err
}

// checkSnapshotContent reads the files of want from snap through the store
// and compares them.
func checkSnapshotContent(t *testing.T, s *Store, snap Snapshot, want map[string]string) {
	t.Helper()
	for rel, body := range want {
		got, err := readSnapFile(s, snap.ID, rel)
		if err != nil {
			t.Errorf("snapshot %s: %s: %v", snap.ID[:8], rel, err)
			continue
		}
		if string(got) != body {
			t.Errorf("snapshot %s: %s = %q, want %q", snap.ID[:8], rel, got, body)
		}
	}
}

// A pack or index torn, truncated or with bytes appended after it (what a
// file system that lost or mangled the tail of a write leaves), and
// temporary files a killed write left at any length, are ignored when the
// store opens: the snapshots in intact packs read back with their content,
// the torn one is reported missing (never read as something else), new
// snapshots work, and deleting the broken run's snapshots removes the torn
// files, after which git fsck --strict passes.
func TestTornPackIgnoredOnOpen(t *testing.T) {
	rng := rand.New(rand.NewSource(propSeed(t)))
	tears := []string{"truncate-pack", "truncate-idx", "append-pack", "tmp-pack", "tmp-idx"}
	for round := 0; round < 15; round++ {
		tear := tears[round%len(tears)]
		t.Run(fmt.Sprintf("%d-%s", round, tear), func(t *testing.T) {
			ws := newWorkspace(t)
			home := t.TempDir()
			s := openStore(t, home, ws)
			want := map[string]string{}
			var kept []Snapshot
			var wants []map[string]string
			for i := 0; i < 3; i++ {
				rel := fmt.Sprintf("k%d.txt", i)
				want[rel] = fmt.Sprintf("kept %d %d\n", i, rng.Int63())
				write(t, ws, rel, want[rel])
				kept = append(kept, mustSnap(t, s, meta("keep", fmt.Sprint(i), KindAfter)))
				w := map[string]string{}
				for k, v := range want {
					w[k] = v
				}
				wants = append(wants, w)
			}
			settle(t, s) // the kept snapshots' own pack
			before := packFiles(t, s.GitDir())
			write(t, ws, "victim.txt", fmt.Sprintf("victim %d\n", rng.Int63()))
			victim := mustSnap(t, s, meta("victim", "v", KindAfter))
			settle(t, s)
			var newPack string
			for n := range packFiles(t, s.GitDir()) {
				if !before[n] && strings.HasSuffix(n, ".pack") {
					newPack = strings.TrimSuffix(n, ".pack")
				}
			}
			if newPack == "" {
				t.Fatal("the victim snapshot made no pack")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(s.GitDir(), "objects", "pack")
			pack, idx := filepath.Join(dir, newPack+".pack"), filepath.Join(dir, newPack+".idx")
			broken := true
			switch tear {
			case "truncate-pack", "truncate-idx":
				p := pack
				if tear == "truncate-idx" {
					p = idx
				}
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(p, rng.Int63n(fi.Size())); err != nil {
					t.Fatal(err)
				}
			case "append-pack":
				if err := os.Chmod(pack, 0o600); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(pack, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				junk := make([]byte, 1+rng.Intn(64))
				rng.Read(junk)
				_, _ = f.Write(junk)
				f.Close()
			case "tmp-pack", "tmp-idx":
				// A write killed part-way: a prefix of the file under its
				// temporary name, beside the intact packs.
				broken = false
				src, prefix := pack, "tmp_pack_"
				if tear == "tmp-idx" {
					src, prefix = idx, "tmp_idx_"
				}
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, prefix+"0123456789abcdef"), b[:rng.Intn(len(b))], 0o600); err != nil {
					t.Fatal(err)
				}
			}

			s2 := openStore(t, home, ws)
			for i, k := range kept {
				checkSnapshotContent(t, s2, k, wants[i])
			}
			_, err := readSnapFile(s2, victim.ID, "victim.txt")
			if broken {
				if err == nil || !errors.Is(err, plumbing.ErrObjectNotFound) {
					t.Errorf("reading the snapshot of the torn pack: %v, want an object-not-found error", err)
				}
			} else if err != nil {
				t.Errorf("the victim snapshot is intact but: %v", err)
			}
			// New snapshots work, and do not lean on objects of the torn pack.
			write(t, ws, "later.txt", "later\n")
			later := mustSnap(t, s2, meta("later", "l", KindAfter))
			lw := map[string]string{"later.txt": "later\n"}
			for k, v := range want {
				lw[k] = v
			}
			checkSnapshotContent(t, s2, later, lw)
			if _, err := readSnapFile(s2, later.ID, "victim.txt"); err != nil {
				t.Errorf("victim.txt in a snapshot taken after the tear: %v", err)
			}
			if err := s2.DeleteRun("victim"); err != nil {
				t.Fatal(err)
			}
			if broken {
				for n := range packFiles(t, s2.GitDir()) {
					if strings.HasPrefix(n, newPack) {
						t.Errorf("%s: the torn pack survived the prune", n)
					}
				}
			}
			fsck(t, s2)
		})
	}
}

// The fsyncs of a checkpoint after a one-file edit: one, the object log's
// fdatasync (its objects and the run's head in one append); no file and no
// directory is made.
func TestCheckpointSyncBudget(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	base := mustSnap(t, s, meta("run1", "c1", KindBefore))
	for i := 0; i < 5; i++ {
		write(t, ws, "dir/b.txt", fmt.Sprintf("bravo %d\n", i))
		var evs []syncEvent
		s.sy.hook = func(ev syncEvent) { evs = append(evs, ev) }
		n := countFsyncs(s)
		snap, err := s.SnapshotPaths(bg, base, []string{"dir/b.txt"}, meta("run1", "c2", KindAfter))
		if err != nil {
			t.Fatal(err)
		}
		if got := n(); got != 1 {
			t.Errorf("checkpoint %d: %d fsyncs, want 1 (the object log): %v", i, got, evs)
		}
		for _, ev := range evs {
			if ev.Op == opMkdir || ev.Op == opRename || ev.Op == opRef {
				t.Errorf("checkpoint %d made a file or directory: %v", i, ev)
			}
		}
		base = snap
	}
}

// A new state directory makes only what git needs (no 256 fan-out
// directories up front); the first snapshot adds objects/pack's files and
// the run's ref directories, nothing else.
func TestNoDirectoriesUpFront(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	var dirs []string
	_ = filepath.WalkDir(s.GitDir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			rel, _ := filepath.Rel(s.GitDir(), p)
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(dirs)
	if len(dirs) > 10 {
		t.Errorf("a new shadow repository has %d directories: %v", len(dirs), dirs)
	}
	mustSnap(t, s, meta("run1", "c1", KindBefore))
	if m, _ := filepath.Glob(filepath.Join(s.GitDir(), "objects", "[0-9a-f][0-9a-f]")); len(m) > 0 {
		t.Errorf("fan-out directories made: %d", len(m))
	}
	fsck(t, s)
}

// Past maxPacks packs a flush merges the smallest; the snapshots stay
// readable, git still reads the repository, and a prune after deleting a
// run leaves only the reachable objects, in as few packs as it needs.
func TestPacksMergedAndPruned(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	var snaps []Snapshot
	var bodies []string
	base := mustSnap(t, s, meta("a", "c0", KindBefore))
	for i := 0; i < 3*maxPacks; i++ {
		body := fmt.Sprintf("edit %d\n", i)
		write(t, ws, "a.txt", body)
		run := "a"
		if i%2 == 1 {
			run = "b"
		}
		snap, err := s.SnapshotPaths(bg, base, []string{"a.txt"}, meta(run, fmt.Sprint(i), KindAfter))
		if err != nil {
			t.Fatal(err)
		}
		if n := countPacks(t, s); n > maxPacks {
			t.Fatalf("after checkpoint %d: %d packs (maxPacks %d)", i, n, maxPacks)
		}
		snaps, bodies, base = append(snaps, snap), append(bodies, body), snap
	}
	for i, snap := range snaps {
		checkSnapshotContent(t, s, snap, map[string]string{"a.txt": bodies[i]})
	}
	fsck(t, s)
	if err := s.DeleteRun("b"); err != nil {
		t.Fatal(err)
	}
	if n := countPacks(t, s); n != 1 {
		t.Errorf("after the prune: %d packs, want 1", n)
	}
	if hasGit() {
		out := gitCmd(t, "", nil, "--git-dir="+s.GitDir(), "cat-file", "--batch-all-objects", "--batch")
		if !strings.Contains(out, bodies[0]) {
			t.Errorf("run a's first edit is gone after deleting run b")
		}
	}
	for i, snap := range snaps {
		if i%2 == 0 {
			checkSnapshotContent(t, s, snap, map[string]string{"a.txt": bodies[i]})
		}
	}
	fsck(t, s)
}

func countPacks(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	for name := range packFiles(t, s.GitDir()) {
		if strings.HasSuffix(name, ".pack") {
			n++
		}
	}
	return n
}
