package checkpoint

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Benchmarks run on a generated repository of benchFiles files (20 × 20
// directories of 50 files, 100–1100 bytes each, a root .gitignore),
// committed with the git CLI so the user's index exists. Run with
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/checkpoint/
const benchFiles = 20000

// The fixture is generated once per `go test` process (b.TempDir is
// removed between a benchmark's N=1 and N=20 calls) and removed by TestMain.
var (
	benchOnce sync.Once
	benchDir  string
	benchWS   string
	benchErr  error
)

func TestMain(m *testing.M) {
	if os.Getenv("CHECKPOINT_CRASH_CHILD") != "" {
		crashChild() // crash_test.go
		return
	}
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func benchRepo(b *testing.B) string {
	b.Helper()
	if !hasGit() {
		b.Skip("git not installed")
	}
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "checkpoint-bench-*")
		if benchErr == nil {
			benchWS = filepath.Join(benchDir, "ws")
			benchErr = makeBenchRepo(b, benchWS)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchWS
}

func makeBenchRepo(b *testing.B, ws string) error {
	rng := rand.New(rand.NewSource(1))
	buf := make([]byte, 1100)
	for i := 0; i < 20; i++ {
		for j := 0; j < 20; j++ {
			dir := filepath.Join(ws, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("mod%02d", j))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for k := 0; k < benchFiles/400; k++ {
				size := 100 + rng.Intn(1000)
				for x := range buf[:size] {
					buf[x] = byte('a' + rng.Intn(26))
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", k)), buf[:size], 0o644); err != nil {
					return err
				}
			}
		}
	}
	write(b, ws, ".gitignore", "*.o\nnode_modules/\n/build/\n")
	gitCmd(b, ws, nil, "init", "-q")
	gitCmd(b, ws, nil, "add", "-A")
	gitCmd(b, ws, nil, "commit", "-q", "-m", "fixture")
	// Let every file age past the racy window, as in a real checkout.
	time.Sleep(racySlack + 100*time.Millisecond)
	return nil
}

// benchHome is a directory private to one benchmark, kept across its calls.
func benchHome(b *testing.B) string {
	return filepath.Join(benchDir, strings.ReplaceAll(b.Name(), "/", "_"))
}

func benchEdit(b *testing.B, ws, rel string, i int) {
	b.Helper()
	write(b, ws, rel, fmt.Sprintf("package x // edit %d %d\n", i, time.Now().UnixNano()))
}

// cpuNow is this process's CPU time plus that of its waited-for children
// (the git CLI of the baselines), so that a baseline that forks is charged
// for its processes.
func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}

// cpuMeter adds up the CPU of the timed part of each iteration and reports
// it as cpu-ms/op: on a shared machine CPU time varies less than wall time.
type cpuMeter struct {
	start, total time.Duration
}

func (m *cpuMeter) begin() { m.start = cpuNow() }
func (m *cpuMeter) end()   { m.total += cpuNow() - m.start }
func (m *cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(m.total)/float64(b.N)/1e6, "cpu-ms/op")
}

var benchStores = map[string]*Store{}

// benchStore opens (once per benchmark) a store on the fixture and takes
// the cold first snapshot, then a warm one.
func benchStore(b *testing.B, ws string) (*Store, Snapshot) {
	b.Helper()
	s, ok := benchStores[b.Name()]
	if !ok {
		var err error
		s, err = Open(benchHome(b), ws)
		if err != nil {
			b.Fatal(err)
		}
		benchStores[b.Name()] = s
		if _, err := s.Snapshot(bg, Meta{RunID: "bench", Kind: KindBefore}); err != nil {
			b.Fatal(err)
		}
	}
	snap, err := s.Snapshot(bg, Meta{RunID: "bench", Kind: KindBefore})
	if err != nil {
		b.Fatal(err)
	}
	return s, snap
}

func BenchmarkCheckpointOneFileEdit(b *testing.B) {
	ws := benchRepo(b)
	s, base := benchStore(b, ws)
	rel := "pkg07/mod11/file023.go"
	var cpu cpuMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		benchEdit(b, ws, rel, i)
		b.StartTimer()
		cpu.begin()
		snap, err := s.SnapshotPaths(bg, base, []string{rel}, Meta{RunID: "bench", CallID: "c", Kind: KindAfter})
		cpu.end()
		if err != nil {
			b.Fatal(err)
		}
		base = snap
	}
	b.StopTimer()
	cpu.report(b)
}

var fewFiles = []string{"pkg01/mod02/file003.go", "pkg10/mod10/file010.go", "pkg19/mod00/file049.go"}

func BenchmarkCheckpointScanFewChanged(b *testing.B) {
	ws := benchRepo(b)
	s, _ := benchStore(b, ws)
	var cpu cpuMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, f := range fewFiles {
			benchEdit(b, ws, f, i)
		}
		b.StartTimer()
		cpu.begin()
		_, err := s.Snapshot(bg, Meta{RunID: "bench", Kind: KindAfter})
		cpu.end()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu.report(b)
	b.ReportMetric(float64(s.lastScan.hashed), "files-hashed/op")
}

// A new process: open the store (loading the stat cache from disk), then scan.
func BenchmarkCheckpointScanFewChangedNewProcess(b *testing.B) {
	ws := benchRepo(b)
	s, _ := benchStore(b, ws)
	s.mu.Lock()
	err := s.stat.save(s.statPath(), s.gen) // what Close would write
	s.mu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	home := benchHome(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, f := range fewFiles {
			benchEdit(b, ws, f, i)
		}
		b.StartTimer()
		s2, err := Open(home, ws)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s2.Snapshot(bg, Meta{RunID: "bench", Kind: KindAfter}); err != nil {
			b.Fatal(err)
		}
		if err := s2.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// gitCLISnapshot is the baseline: the git CLI with its own separate index
// and git dir: add (-A, or -- PATH...), write-tree, commit-tree.
type gitCLISnapshot struct {
	ws, gitDir string
	env        []string
	parent     string
}

func newGitCLI(b *testing.B, ws string) *gitCLISnapshot {
	g := &gitCLISnapshot{ws: ws, gitDir: filepath.Join(benchHome(b), "cli.git")}
	g.env = append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(benchHome(b), "cli.index"),
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@a", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@a")
	if _, err := os.Stat(g.gitDir); err != nil {
		g.run(b, "init", "-q", "--bare", g.gitDir)
	}
	g.snapshot(b) // warm the index
	return g
}

func (g *gitCLISnapshot) run(b *testing.B, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Env = g.env
	cmd.Dir = g.ws
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (g *gitCLISnapshot) snapshot(b *testing.B) {
	g.commit(b, "-A")
}

// snapshotPaths is the fair baseline of SnapshotPaths: git is told which
// paths changed (add -- PATH...), as SnapshotPaths is, and its warm index
// spares it the scan of the other files.
func (g *gitCLISnapshot) snapshotPaths(b *testing.B, paths ...string) {
	g.commit(b, append([]string{"--"}, paths...)...)
}

func (g *gitCLISnapshot) commit(b *testing.B, addArgs ...string) {
	base := []string{"--git-dir=" + g.gitDir, "--work-tree=" + g.ws}
	g.run(b, append(append(base, "add"), addArgs...)...)
	tree := g.run(b, append(base, "write-tree")...)
	args := append(base, "commit-tree", tree, "-m", "checkpoint")
	if g.parent != "" {
		args = append(args, "-p", g.parent)
	}
	g.parent = g.run(b, args...)
}

func BenchmarkGitCLIWarmIndex(b *testing.B) {
	ws := benchRepo(b)
	g := newGitCLI(b, ws)
	rel := "pkg07/mod11/file023.go"
	var cpu cpuMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		benchEdit(b, ws, rel, i)
		b.StartTimer()
		cpu.begin()
		g.snapshot(b)
		cpu.end()
	}
	b.StopTimer()
	cpu.report(b)
	g.checkHas(b, rel)
}

// BenchmarkGitCLIWarmIndexOnePath is the fair baseline of
// BenchmarkCheckpointOneFileEdit: the same one-file edit, the git CLI's warm
// index, and the changed path named (`add -- PATH`, write-tree,
// commit-tree), so neither side scans the workspace.
func BenchmarkGitCLIWarmIndexOnePath(b *testing.B) {
	ws := benchRepo(b)
	g := newGitCLI(b, ws)
	rel := "pkg07/mod11/file023.go"
	var cpu cpuMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		benchEdit(b, ws, rel, i)
		b.StartTimer()
		cpu.begin()
		g.snapshotPaths(b, rel)
		cpu.end()
	}
	b.StopTimer()
	cpu.report(b)
	g.checkHas(b, rel)
}

// checkHas fails unless the newest commit holds path as it is on disk, so a
// baseline that stopped recording the edit cannot pass for fast.
func (g *gitCLISnapshot) checkHas(b *testing.B, rel string) {
	base := []string{"--git-dir=" + g.gitDir, "--work-tree=" + g.ws}
	inCommit := g.run(b, append(base, "rev-parse", g.parent+":"+rel)...)
	onDisk := g.run(b, append(base, "hash-object", "--", rel)...)
	if inCommit != onDisk {
		b.Fatalf("the CLI's checkpoint has %s at %s, the file is %s", rel, inCommit, onDisk)
	}
}

func BenchmarkGitCLIWarmIndexFewChanged(b *testing.B) {
	ws := benchRepo(b)
	g := newGitCLI(b, ws)
	var cpu cpuMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, f := range fewFiles {
			benchEdit(b, ws, f, i)
		}
		b.StartTimer()
		cpu.begin()
		g.snapshot(b)
		cpu.end()
	}
	b.StopTimer()
	cpu.report(b)
	g.checkHas(b, fewFiles[0])
}

// go-git's own worktree Add + Commit, with a separate repository whose
// worktree is the workspace (the user's .git is not used).
func BenchmarkGoGitWorktreeAddCommit(b *testing.B) {
	ws := benchRepo(b)
	st := filesystem.NewStorage(osfs.New(filepath.Join(benchHome(b), "gogit.git")), cache.NewObjectLRUDefault())
	if _, err := git.Init(st, nil); err != nil && err != git.ErrRepositoryAlreadyExists {
		b.Fatal(err)
	}
	repo, err := git.Open(st, osfs.New(ws)) // Open writes nothing into the worktree
	if err != nil {
		b.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	sig := &object.Signature{Name: "a", Email: "a@a", When: time.Now()}
	commit := func() {
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := wt.Commit("checkpoint", &git.CommitOptions{Author: sig, AllowEmptyCommits: true}); err != nil {
			b.Fatal(err)
		}
	}
	commit()
	rel := "pkg07/mod11/file023.go"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		benchEdit(b, ws, rel, i)
		b.StartTimer()
		commit()
	}
}
