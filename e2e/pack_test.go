package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A 200-step replayed run (every step writes a file, every tenth runs a
// command) leaves a shadow repository that git's own tools read: `git fsck
// --strict` exits 0, `git cat-file` prints the run's newest checkpoint and
// its tree, the objects are in packs with their indexes (no loose objects,
// no fan-out directories), and the packs were merged as the run went on.
func TestShadowRepositoryFsckAfter200Steps(t *testing.T) {
	const steps = 200
	var turns []map[string]any
	for i := 0; i < steps; i++ {
		id := fmt.Sprintf("c%d", i)
		if i%10 == 9 {
			turns = append(turns, turn("", call(id, "run_command", map[string]any{
				"command": fmt.Sprintf("mkdir -p gen && echo step %d > gen/s%02d.txt", i, i%7)})))
			continue
		}
		turns = append(turns, turn("", call(id, "write_file", map[string]any{
			"path": fmt.Sprintf("pkg/f%02d.txt", i%23), "content": fmt.Sprintf("step %d\n%s\n", i, strings.Repeat("x", i))})))
	}
	turns = append(turns, turn("done"))
	e := newEnv(t, script(turns...))
	r := e.run("run", "--approval", "full-auto", "--max-steps", fmt.Sprint(steps+5), "write many files")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	repos, _ := filepath.Glob(filepath.Join(e.home, "checkpoints", "*.git"))
	if len(repos) != 1 {
		t.Fatalf("shadow repositories: %v", repos)
	}
	repo := repos[0]
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"--git-dir=" + repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("fsck", "--strict", "--no-dangling")
	head := strings.TrimSpace(readFile(t, filepath.Join(repo, "refs", "agent", "runs", id, "head")))
	if !strings.Contains(git("cat-file", "-p", head), "Agent-Run: "+id) {
		t.Errorf("git cat-file -p %s does not show the run's checkpoint", head)
	}
	if got := git("cat-file", "-p", head+":pkg/f22.txt"); !strings.HasPrefix(got, "step ") {
		t.Errorf("git cat-file of a file in the newest checkpoint: %q", got)
	}
	if n := strings.Count(git("rev-list", head), "\n"); n < steps {
		t.Errorf("the run's head reaches %d checkpoints; want at least %d", n, steps)
	}
	ents, err := os.ReadDir(filepath.Join(repo, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "pack" && e.Name() != "info" {
			t.Errorf("objects/%s: only objects/pack (and git's objects/info) should be there", e.Name())
		}
	}
	packs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "pack-*.pack"))
	idxs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "pack-*.idx"))
	if len(packs) == 0 || len(packs) != len(idxs) || len(packs) > 17 {
		t.Errorf("%d packs and %d indexes after %d checkpoints; want each pack with its index, merged down to at most 17", len(packs), len(idxs), steps)
	}
	if tmp, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "tmp_*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
