package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sysEvent is one successful fsync, rename or mkdir a traced process made.
type sysEvent struct {
	op       string // "fsync", "rename", "mkdir"
	path, to string // absolute
}

var (
	reFsync  = regexp.MustCompile(`^(?:fsync|fdatasync)\(\d+<([^>]*)>\)\s+= 0`)
	reRename = regexp.MustCompile(`^renameat2?\((?:AT_FDCWD|\d+)(?:<([^>]*)>)?, "([^"]*)", (?:AT_FDCWD|\d+)(?:<([^>]*)>)?, "([^"]*)"(?:, [A-Z_|0-9]+)?\)\s+= 0`)
	reMkdir  = regexp.MustCompile(`^mkdirat\((?:AT_FDCWD|\d+)(?:<([^>]*)>)?, "([^"]*)", 0?\d+\)\s+= 0`)
	rePid    = regexp.MustCompile(`^(\d+)\s+(.*)$`)
)

func joinAt(dir, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(dir, name)
}

// parseStrace reads `strace -f -y` output, joining calls another thread
// interrupted ("<unfinished ...>" … "<... NAME resumed>").
func parseStrace(t *testing.T, log []byte) []sysEvent {
	t.Helper()
	var evs []sysEvent
	open := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := rePid.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pid, line := m[1], m[2]
		if head, ok := strings.CutSuffix(line, " <unfinished ...>"); ok {
			open[pid] = head
			continue
		}
		if strings.HasPrefix(line, "<... ") {
			_, rest, ok := strings.Cut(line, " resumed>")
			if !ok {
				continue
			}
			line = open[pid] + rest
			delete(open, pid)
		}
		if m := reFsync.FindStringSubmatch(line); m != nil {
			evs = append(evs, sysEvent{op: "fsync", path: m[1]})
		} else if m := reRename.FindStringSubmatch(line); m != nil {
			evs = append(evs, sysEvent{op: "rename", path: joinAt(m[1], m[2]), to: joinAt(m[3], m[4])})
		} else if m := reMkdir.FindStringSubmatch(line); m != nil {
			evs = append(evs, sysEvent{op: "mkdir", path: joinAt(m[1], m[2])})
		}
	}
	return evs
}

// Through the real binary, at the system-call level: every pack, pack index
// and ref a run leaves in its shadow repository had its data fsynced before
// it was renamed to its name (a pack's index before the pack), its
// directory fsynced after, every directory made
// for them had its parent fsynced, and the head ref was never bound to a
// snapshot (renamed into place, or rewritten in place and fsynced) before
// the objects renamed before it were durable.
func TestCheckpointFilesFsyncedUnderStrace(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	if out, err := exec.Command(strace, "-f", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v %s", err, out)
	}
	e := newEnv(t, script(
		turn("", call("c1", "write_file", map[string]any{"path": "pkg/deep/new.go", "content": "package deep\n"})),
		turn("", call("c2", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Bye"`})),
		turn("", call("c3", "run_command", map[string]any{"command": "mkdir -p gen && echo x > gen/made.txt"})),
		turn("done"),
	))
	logPath := filepath.Join(t.TempDir(), "strace.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, strace, "-f", "-qq", "-y", "-s", "4096", "-o", logPath,
		"-e", "trace=fsync,fdatasync,rename,renameat,renameat2,mkdir,mkdirat",
		agentBin, "run", "--approval", "full-auto", "change things")
	cmd.Env, cmd.Dir = e.environ(), e.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("agent under strace: %v\n%s", err, out)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	evs := parseStrace(t, log)
	after := func(from int, op, path string) int {
		for i := from; i < len(evs); i++ {
			if evs[i].op == op && evs[i].path == path {
				return i
			}
		}
		return -1
	}
	repos, _ := filepath.Glob(filepath.Join(e.home, "checkpoints", "*.git"))
	if len(repos) != 1 {
		t.Fatalf("shadow repositories: %v", repos)
	}
	repo := repos[0]
	type placed struct{ renamed, durable int }
	objects, refs := map[string]placed{}, map[string]placed{}
	err = filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		base := filepath.Base(rel)
		isObj := strings.HasPrefix(rel, "objects"+string(filepath.Separator)) && !strings.HasPrefix(rel, filepath.Join("objects", "info")) &&
			(!strings.HasPrefix(rel, filepath.Join("objects", "pack")) || strings.HasPrefix(base, "pack-"))
		if strings.HasPrefix(rel, filepath.Join("objects", "pack")+string(filepath.Separator)) && !d.IsDir() && !strings.HasPrefix(base, "pack-") {
			t.Errorf("%s: left in objects/pack (only packs and their indexes belong there)", rel)
		}
		isRef := strings.HasPrefix(rel, filepath.Join("refs", "agent")+string(filepath.Separator))
		if !isObj && !isRef {
			return nil
		}
		if d.IsDir() {
			m := after(0, "mkdir", p)
			if m < 0 {
				t.Errorf("%s: not made by the run", rel)
			} else if after(m, "fsync", filepath.Dir(p)) < 0 {
				t.Errorf("%s: made, but its parent was never fsynced after", rel)
			}
			return nil
		}
		ren := -1
		for i, ev := range evs {
			if ev.op == "rename" && ev.to == p {
				ren = i
			}
		}
		if ren < 0 {
			t.Errorf("%s: never renamed into place", rel)
			return nil
		}
		if s := after(0, "fsync", evs[ren].path); s < 0 || s > ren {
			t.Errorf("%s: its data (%s) was not fsynced before the rename", rel, filepath.Base(evs[ren].path))
		}
		dsync := after(ren, "fsync", filepath.Dir(p))
		if dsync < 0 {
			t.Errorf("%s: its directory was not fsynced after the rename", rel)
		}
		if isObj {
			objects[rel] = placed{ren, dsync}
		} else {
			refs[rel] = placed{ren, dsync}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A run's head ref is renamed into place once, then rewritten in place
	// and fsynced at each snapshot: each of those is the moment a snapshot
	// is bound, and every pack renamed before it must be durable by then.
	var points []int
	for r, rp := range refs {
		points = append(points, rp.renamed)
		for i := rp.renamed + 1; i < len(evs); i++ {
			if evs[i].op == "fsync" && evs[i].path == filepath.Join(repo, r) {
				points = append(points, i)
			}
		}
	}
	if len(refs) != 1 || len(points) < 1 || len(objects) < 2 {
		t.Fatalf("the run left %d refs written %d times and %d pack files; the test expected one head ref and the pack of its object log",
			len(refs), len(points), len(objects))
	}
	// Each snapshot is bound by one fdatasync of the run's object log
	// (its objects and head in one append): six for three calls, every one
	// after the log was renamed into place and its directory synced, and
	// the log folded into the pack (and gone) by the end of the run.
	logs := map[string][]int{}
	for i, ev := range evs {
		if ev.op == "fsync" && strings.HasPrefix(filepath.Base(ev.path), "objlog-") && filepath.Dir(ev.path) == filepath.Join(repo, "agent") {
			logs[ev.path] = append(logs[ev.path], i)
		}
	}
	if len(logs) != 1 {
		t.Fatalf("object logs synced by the run: %v; want one", logs)
	}
	for lp, syncs := range logs {
		if len(syncs) < 6 {
			t.Errorf("the object log was synced %d times; want one per snapshot (6)", len(syncs))
		}
		ren := -1
		for i, ev := range evs {
			if ev.op == "rename" && ev.to == lp {
				ren = i
			}
		}
		if ren < 0 || ren > syncs[0] {
			t.Errorf("the object log was synced before it was renamed into place")
		} else if d := after(ren, "fsync", filepath.Dir(lp)); d < 0 {
			t.Errorf("the object log's directory was not synced after its rename")
		}
		if _, err := os.Stat(lp); !os.IsNotExist(err) {
			t.Errorf("the object log is still there after the run: %v", err)
		}
	}
	// A pack is listed by its .pack file: its index must be in place first.
	for o, op := range objects {
		if idx, ok := strings.CutSuffix(o, ".pack"); ok {
			if ip, ok := objects[idx+".idx"]; !ok || ip.renamed > op.renamed {
				t.Errorf("%s was renamed into place before its index", o)
			}
		}
	}
	for _, at := range points {
		for o, op := range objects {
			if op.renamed < at && (op.durable < 0 || op.durable > at) {
				t.Errorf("the head ref was bound (event %d) before object %s (renamed earlier) was durable", at, o)
			}
		}
	}
}
