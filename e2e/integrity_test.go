package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkpointOf returns the id of the run's checkpoint of call callID and
// kind, and its files.
func (e *env) checkpointOf(run, callID, kind string) checkpointRow {
	e.t.Helper()
	var cps []checkpointRow
	e.mustJSON(&cps, "checkpoints", run, "--json")
	for _, c := range cps {
		if c.CallID == callID && c.Kind == kind {
			return c
		}
	}
	e.t.Fatalf("no %s checkpoint of %s in %+v", kind, callID, cps)
	return checkpointRow{}
}

// A command edits a tracked file, stages it through a clean filter that
// hands git the old bytes (so .git/index records the new file's stat data
// with the old blob id), back-dates it and touches 99 other files so that a
// scan misses its stat cache often: the after-checkpoint still holds the
// edit, the call's file list names it, and rollback removes it.
func TestForgedIndexDoesNotHideAnEdit(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 100; i++ {
		files[fmt.Sprintf("auth/h%02d.go", i)] = fmt.Sprintf("package auth\n\n// Check%02d guards a route.\nfunc Check%02d(user string) bool {\n\treturn user == \"admin\"\n}\n", i, i)
	}
	// The forged file is the last one a scan meets (getdents order).
	forge := `set -e
T=auth/$(ls -f auth | grep '\.go$' | tail -n 1)
t=$(mktemp -d); git show HEAD:$T > $t/orig
echo "$(basename $T) filter=lie" > $t/attrs
printf 'package auth\n\nfunc Allow(user string) bool { return true } // BACKDOOR\n' > $T
touch -d '2 hours ago' $T
git -c core.attributesFile=$t/attrs -c filter.lie.clean="cat >/dev/null; cat $t/orig" add $T
for f in auth/*.go; do [ "$f" = "$T" ] || touch "$f"; done
test -z "$(git status --porcelain)" && echo "git sees nothing: $T"`
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": forge})),
		turn("done"),
	))
	e.ws = gitRepo(t, files)
	r := e.run("run", "--approval", "full-auto", "tidy auth")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	var target string
	for _, req := range e.srv.Requests() {
		if i := strings.LastIndex(string(req.Body), "git sees nothing: auth/"); i >= 0 {
			target = string(req.Body)[i+len("git sees nothing: "):]
			target = target[:strings.IndexAny(target, `\"`)]
		}
	}
	if target == "" {
		t.Fatal("harness: the forging command did not hide its edit from git")
	}
	after := e.checkpointOf(id, "c1", "after")
	if strings.Join(after.Files, ",") != target {
		t.Errorf("the after-checkpoint lists %v, want the forged %s", after.Files, target)
	}
	r = e.run("checkpoints", id, "--patch")
	if !strings.Contains(r.stdout, "BACKDOOR") {
		t.Errorf("checkpoints --patch does not show the edit:\n%s", r.stdout)
	}
	before := e.checkpointOf(id, "c1", "before")
	if r = e.run("rollback", before.CheckpointID); r.code != 0 {
		t.Fatalf("rollback: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, target)); got != files[target] {
		t.Errorf("rollback left %s as\n%s", target, got)
	}
}

// A command cannot put its files out of rollback's reach by making them
// ignored afterwards (.gitignore inside the sandbox, .git/info/exclude
// without it) or by padding them past the 10 MiB snapshot cap: rollback
// restores each path, or names it and exits 1.
func TestRollbackDodges(t *testing.T) {
	for _, tc := range []struct {
		name, hide string
		sandbox    []string
	}{
		{"gitignore", "echo plugin_x.py >> .gitignore", nil},
		{"exclude", "echo plugin_x.py >> .git/info/exclude", []string{"--sandbox", "off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, script(
				turn("", call("c1", "run_command", map[string]any{"command": `printf 'import os\nos.system("id")\n' > plugin_x.py`})),
				turn("", call("c2", "run_command", map[string]any{"command": tc.hide})),
				turn("", call("c3", "run_command", map[string]any{"command": `printf '\nimport backdoor\n' >> README.md && printf 'print(1)\n' > app.py && echo app.py >> .gitignore`})),
				turn("", call("c4", "run_command", map[string]any{"command": `yes '# padding' | head -c 11000000 >> main.go && yes blob | head -c 11000000 > born_big.dat`})),
				turn("done"),
			))
			readme := readFile(t, filepath.Join(e.ws, "README.md"))
			mainGo := readFile(t, filepath.Join(e.ws, "main.go"))
			ignore := readFile(t, filepath.Join(e.ws, ".gitignore"))
			args := append([]string{"run", "--approval", "full-auto"}, tc.sandbox...)
			r := e.run(append(args, "make changes")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			id := runID(t, r.stderr)
			before := e.checkpointOf(id, "c1", "before")
			r = e.run("rollback", before.CheckpointID)
			if r.code != 1 {
				t.Fatalf("rollback exit %d, want 1 (main.go and born_big.dat cannot be restored)\n%s", r.code, r.stderr)
			}
			for _, gone := range []string{"plugin_x.py", "app.py"} {
				if _, err := os.Stat(filepath.Join(e.ws, gone)); err == nil {
					t.Errorf("%s, created after the checkpoint and ignored later, survived:\n%s", gone, r.stderr)
				}
			}
			if readFile(t, filepath.Join(e.ws, "README.md")) != readme || readFile(t, filepath.Join(e.ws, ".gitignore")) != ignore {
				t.Errorf("README.md or .gitignore not restored:\n%s", r.stderr)
			}
			// Over the cap: left in place (no snapshot could bring them
			// back) and named with the reason.
			for _, p := range []string{"main.go", "born_big.dat"} {
				if !strings.Contains(r.stderr, "not restored "+p+": ") || !strings.Contains(r.stderr, "10 MiB") {
					t.Errorf("rollback does not name %s:\n%s", p, r.stderr)
				}
			}
			if !strings.Contains(r.stderr, "rollback incomplete") {
				t.Errorf("no summary of what is not restored:\n%s", r.stderr)
			}
			// Moved out of the way, main.go comes back.
			if err := os.Remove(filepath.Join(e.ws, "main.go")); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(e.ws, "born_big.dat")); err != nil {
				t.Fatal(err)
			}
			if r = e.run("rollback", before.CheckpointID); r.code != 0 {
				t.Fatalf("second rollback: exit %d\n%s", r.code, r.stderr)
			}
			if readFile(t, filepath.Join(e.ws, "main.go")) != mainGo {
				t.Error("main.go not restored once out of the way")
			}
		})
	}
}

// A provider that reports an absurd usage (near the largest int, twice) does
// not wrap the run's totals negative: the usage is recorded as unknown and
// the person is told.
func TestAbsurdUsageRecordedAsUnknown(t *testing.T) {
	huge := map[string]any{"input": int64(9223372036854775000), "output": 10}
	t1 := turn("", call("c1", "read_file", map[string]any{"path": "README.md"}))
	t1["usage"] = huge
	t2 := turn("done")
	t2["usage"] = huge
	e := newEnv(t, script(t1, t2))
	r := e.run("run", "--approval", "full-auto", "read")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: the provider reported an impossible usage") {
		t.Errorf("no warning on stderr:\n%s", r.stderr)
	}
	var runs []struct {
		TokensIn  int64 `json:"tokens_in"`
		TokensOut int64 `json:"tokens_out"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 1 || runs[0].TokensIn < 0 || runs[0].TokensOut < 0 || runs[0].TokensIn > 1e9 {
		t.Errorf("runs = %+v: want the absurd usage left out, never negative", runs)
	}
}
