package checkpoint

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// crashStore leaves s as a killed process would: its object log unfolded
// on disk and no longer locked. It returns the log's path.
func crashStore(t *testing.T, s *Store) string {
	t.Helper()
	if s.logs.own == nil {
		t.Fatal("no object log to leave behind")
	}
	p := s.logs.own.path
	s.logs.dropOwn()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A torn append (the log cut at any byte, or a byte of its tail flipped)
// loses only the records from the tear on: the next store to open the
// repository folds the whole records of the dead log into a pack and refs,
// the run's head is the last snapshot whose records were whole, each of
// those reads back, and git fsck passes.
func TestTornObjectLogIgnoredOnOpen(t *testing.T) {
	rng := rand.New(rand.NewSource(propSeed(t)))
	for trial := 0; trial < 24; trial++ {
		ws := newWorkspace(t)
		home := t.TempDir()
		s := openStore(t, home, ws)
		var ids []string
		var ends []int64 // the log's size once each snapshot returned
		bodies := map[string]string{}
		n := 3 + rng.Intn(6)
		for i := 0; i < n; i++ {
			body := fmt.Sprintf("step %d %d\n%s", i, rng.Int63(), strings.Repeat("z", rng.Intn(3000)))
			write(t, ws, fmt.Sprintf("f%d.txt", i), body)
			snap := mustSnap(t, s, meta("torn", fmt.Sprint(i), KindAfter))
			ids = append(ids, snap.ID)
			bodies[snap.ID] = body
			ends = append(ends, s.logs.own.size)
		}
		logPath := crashStore(t, s)
		fi, err := os.Stat(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != ends[n-1] {
			t.Fatalf("log is %d bytes, the store says %d", fi.Size(), ends[n-1])
		}
		cut := rng.Int63n(fi.Size() + 1)
		flip := trial%3 == 2 && cut < fi.Size()
		if flip { // a flipped byte at cut: the record holding it fails its crc
			b, _ := os.ReadFile(logPath)
			b[cut] ^= 0x5a
			if err := os.WriteFile(logPath, b, 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Truncate(logPath, cut); err != nil {
			t.Fatal(err)
		}
		whole := 0 // snapshots whose records all lie before the tear
		for whole < n && ends[whole] <= cut {
			whole++
		}
		s2 := openStore(t, home, ws)
		if _, err := os.Stat(logPath); !os.IsNotExist(err) {
			t.Fatalf("trial %d: the dead log was not folded and removed on open: %v", trial, err)
		}
		list, err := s2.List("torn")
		if err != nil {
			t.Fatalf("trial %d (cut %d of %d, flip %v): list: %v", trial, cut, fi.Size(), flip, err)
		}
		if len(list) != whole {
			t.Fatalf("trial %d (cut %d of %d, flip %v): %d snapshots listed, want the %d before the tear", trial, cut, fi.Size(), flip, len(list), whole)
		}
		for i, sn := range list {
			if sn.ID != ids[i] {
				t.Fatalf("trial %d: snapshot %d is %s, want %s", trial, i, sn.ID[:8], ids[i][:8])
			}
			got, err := readSnapFile(s2, sn.ID, fmt.Sprintf("f%d.txt", i))
			if err != nil || string(got) != bodies[sn.ID] {
				t.Fatalf("trial %d: snapshot %d reads %d bytes, %v", trial, i, len(got), err)
			}
		}
		fsck(t, s2)
		// The run goes on from the last whole snapshot.
		write(t, ws, "after.txt", "after\n")
		next := mustSnap(t, s2, meta("torn", "next", KindAfter))
		if want := ""; whole > 0 {
			want = ids[whole-1]
			if next.Parent != want {
				t.Fatalf("trial %d: the next snapshot's parent is %s, want %s", trial, next.Parent, want)
			}
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A dead log older than the ref (a process of the run that died after a
// later process folded its own log) does not move the head back.
func TestFoldedHeadsOnlyMoveForward(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	s := openStore(t, home, ws)
	mustSnap(t, s, meta("fw", "1", KindAfter))
	write(t, ws, "a.txt", "two\n")
	two := mustSnap(t, s, meta("fw", "2", KindAfter))
	old, err := os.ReadFile(s.logs.own.path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "a.txt", "three\n")
	three := mustSnap(t, s, meta("fw", "3", KindAfter))
	if err := s.Close(); err != nil { // folds: the ref names three
		t.Fatal(err)
	}
	stale := filepath.Join(s.GitDir(), "agent", logPrefix+"stale")
	if err := os.WriteFile(stale, old, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, home, ws)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale log was not folded: %v", err)
	}
	r, err := s2.st.Reference(headRefName("fw"))
	if err != nil || r.Hash() != plumbing.NewHash(three.ID) {
		t.Fatalf("head ref = %v, %v; want %s (not %s, the stale log's)", r, err, three.ID[:8], two.ID[:8])
	}
	fsck(t, s2)
}

// Another process's live log is read, not folded: a second store sees the
// first one's newest snapshot before it settles, and git sees it after.
func TestLiveLogReadByAnotherStore(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	s := openStore(t, home, ws)
	snap := mustSnap(t, s, meta("live", "1", KindAfter))
	s2 := openStore(t, home, ws)
	if s.logs.own == nil {
		t.Fatal("no object log")
	}
	if _, err := os.Stat(s.logs.own.path); err != nil {
		t.Fatalf("the other store folded a live log: %v", err)
	}
	h, err := s2.Head("live")
	if err != nil || h.ID != snap.ID {
		t.Fatalf("the other store's head = %v, %v; want %s", h.ID, err, snap.ID[:8])
	}
	if _, err := readSnapFile(s2, snap.ID, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(); err != nil {
		t.Fatal(err)
	}
	fsck(t, s2)
	if r, err := s2.st.Reference(headRefName("live")); err != nil || r.Hash().String() != snap.ID {
		t.Fatalf("ref after settle = %v, %v", r, err)
	}
}
