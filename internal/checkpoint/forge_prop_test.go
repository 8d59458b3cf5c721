package checkpoint

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// forgeIndex points rel's entry in the user's index at blob, keeping the
// entry's stat data, and rewrites the index with a valid checksum: what a
// command that wants its edit hidden does after `git add`.
func forgeIndex(t *testing.T, ws, rel string, blob plumbing.Hash) {
	t.Helper()
	p := filepath.Join(ws, ".git", "index")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	var idx index.Index
	err = index.NewDecoder(bufio.NewReader(f)).Decode(&idx)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	hit := false
	for _, e := range idx.Entries {
		if e.Name == rel {
			e.Hash, hit = blob, true
		}
	}
	if !hit {
		t.Fatalf("no index entry for %s", rel)
	}
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := index.NewEncoder(out).Encode(&idx); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// freshTree is the git CLI's tree of the workspace as it is: a fresh index
// in a separate git directory, add -A, write-tree. Nothing cached.
func freshTree(t *testing.T, ws string) string {
	t.Helper()
	gd := filepath.Join(t.TempDir(), "oracle.git")
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	gitCmd(t, "", nil, "init", "-q", "--bare", gd)
	gitCmd(t, ws, env, "--git-dir="+gd, "--work-tree="+ws, "add", "-A")
	return strings.TrimSpace(gitCmd(t, ws, env, "--git-dir="+gd, "--work-tree="+ws, "write-tree"))
}

// A command's edits, however they are disguised (the user's index made to
// vouch for the old blob, mtimes back-dated, same-size rewrites in the same
// second, renames, many files touched so that a scan misses its stat cache
// often), never keep them out of the after-checkpoint: its tree is always
// the tree of a fresh hash of the workspace.
func TestAfterCheckpointMatchesFreshHash(t *testing.T) {
	if !hasGit() {
		t.Skip("git not installed")
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("CHECKPOINT_PROP_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (CHECKPOINT_PROP_SEED to repeat)", seed)
	rng := rand.New(rand.NewSource(seed))

	ws := filepath.Join(t.TempDir(), "ws")
	var files []string
	for i := 0; i < 120; i++ {
		rel := fmt.Sprintf("d%d/f%03d.go", i%6, i)
		write(t, ws, rel, fmt.Sprintf("package d\n\n// F%03d v0\nfunc F%03d() bool { return false }\n", i, i))
		files = append(files, rel)
	}
	gitCmd(t, ws, nil, "init", "-q")
	gitCmd(t, ws, nil, "add", "-A")
	gitCmd(t, ws, nil, "commit", "-q", "-m", "init")
	s := openStore(t, t.TempDir(), ws)
	old := time.Now().Add(-2 * time.Hour)

	pick := func() string { return files[rng.Intn(len(files))] }
	// rewrite changes rel's content keeping its size, so only the stat data
	// (and never the size) can tell.
	rewrite := func(rel string, tag string) {
		cur := read(t, ws, rel)
		next := []byte(cur)
		for i := len(next) - 1; i >= 0; i-- {
			if next[i] >= 'a' && next[i] <= 'z' {
				next[i] = 'a' + (next[i]-'a'+1+byte(rng.Intn(20)))%26
				break
			}
		}
		copy(next[len(next)-min(len(tag), len(next)-1)-1:], tag)
		write(t, ws, rel, string(next))
	}
	for step := 0; step < 25; step++ {
		mustSnap(t, s, meta("prop", fmt.Sprintf("c%d", step), KindBefore))
		var did []string
		for n := 1 + rng.Intn(4); n > 0; n-- {
			switch op := rng.Intn(6); op {
			case 0: // same-size rewrite within the same second, mtime put back exactly
				rel := pick()
				fi, err := os.Lstat(filepath.Join(ws, rel))
				if err != nil {
					continue
				}
				rewrite(rel, fmt.Sprint(step))
				_ = os.Chtimes(filepath.Join(ws, rel), fi.ModTime(), fi.ModTime())
				did = append(did, "same-second "+rel)
			case 1: // rewrite, back-date, stage, and make the index vouch for the old blob
				rel := pick()
				oldBlob := hashObject(plumbing.BlobObject, []byte(read(t, ws, rel)))
				rewrite(rel, fmt.Sprint(step))
				_ = os.Chtimes(filepath.Join(ws, rel), old, old)
				gitCmd(t, ws, nil, "add", "--", rel)
				forgeIndex(t, ws, rel, oldBlob)
				did = append(did, "forged "+rel)
			case 2: // back-date without changing content, or with
				rel := pick()
				if rng.Intn(2) == 0 {
					rewrite(rel, "b")
				}
				_ = os.Chtimes(filepath.Join(ws, rel), old, old)
				did = append(did, "back-dated "+rel)
			case 3: // rename over another file, or to a new name
				from, to := pick(), pick()
				if from == to {
					to = fmt.Sprintf("d%d/n%03d.go", rng.Intn(6), step)
					files = append(files, to)
				}
				if os.Rename(filepath.Join(ws, from), filepath.Join(ws, to)) == nil {
					write(t, ws, from, read(t, ws, to)) // same content back at the old name, new inode
					_ = os.Chtimes(filepath.Join(ws, from), old, old)
				}
				did = append(did, "renamed "+from+" "+to)
			case 4: // touch every file (the scan misses its stat cache everywhere), then refresh the index
				now := time.Now()
				for _, f := range files {
					_ = os.Chtimes(filepath.Join(ws, f), now, now)
				}
				gitCmd(t, ws, nil, "update-index", "-q", "--refresh")
				did = append(did, "touched all")
			case 5: // many touched, one forged: the case that made the index worth consulting
				for _, f := range files[:80] {
					_ = os.Chtimes(filepath.Join(ws, f), old, old)
				}
				rel := files[len(files)-1-rng.Intn(20)]
				oldBlob := hashObject(plumbing.BlobObject, []byte(read(t, ws, rel)))
				rewrite(rel, "f")
				_ = os.Chtimes(filepath.Join(ws, rel), old, old)
				gitCmd(t, ws, nil, "add", "-A")
				forgeIndex(t, ws, rel, oldBlob)
				did = append(did, "touched 80, forged "+rel)
			}
		}
		after := mustSnap(t, s, meta("prop", fmt.Sprintf("c%d", step), KindAfter))
		if want := freshTree(t, ws); after.Tree != want {
			t.Fatalf("step %d (%s): after-checkpoint tree %s, a fresh hash gives %s", step, strings.Join(did, "; "), after.Tree, want)
		}
	}
}
