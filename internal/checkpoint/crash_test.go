package checkpoint

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashChild, in a child process (CHECKPOINT_CRASH_CHILD=home|workspace),
// takes snapshots in a loop, each after writing one file, and prints
// "ok STEP ID" once a snapshot returned; the parent kills it.
func crashChild() {
	home, ws, _ := strings.Cut(os.Getenv("CHECKPOINT_CRASH_CHILD"), "|")
	start, _ := strconv.Atoi(os.Getenv("CHECKPOINT_CRASH_START"))
	s, err := Open(home, ws)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	for i := start; ; i++ {
		name := fmt.Sprintf("%s/f%02d.txt", ws, i%13)
		if err := os.WriteFile(name, []byte(crashBody(i)), 0o644); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		snap, err := s.Snapshot(bg, Meta{RunID: "crash", CallID: strconv.Itoa(i), Kind: KindAfter, Step: i})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Printf("ok %d %s\n", i, snap.ID)
	}
}

func crashBody(i int) string { return fmt.Sprintf("step %d\n%s\n", i, strings.Repeat("y", i%97)) }

// SIGKILL at random points while checkpoints are being written (the child
// is killed a random while after a random number of snapshots returned,
// so the kill lands anywhere in the next one: compressing, writing the
// pack, syncing, renaming, rewriting the head, merging packs). After every
// kill: every snapshot the child saw return is there with its content, the
// run's head reaches them, git fsck --strict passes, and the next process
// goes on from there.
func TestCrashDuringCheckpointLeavesAConsistentStore(t *testing.T) {
	rng := rand.New(rand.NewSource(propSeed(t)))
	ws := newWorkspace(t)
	home := t.TempDir()
	want := map[string]int{} // snapshot id → step
	next := 0
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CHECKPOINT_CRASH_CHILD="+home+"|"+ws, "CHECKPOINT_CRASH_START="+strconv.Itoa(next))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		k := 1 + rng.Intn(12)
		for i := 0; i < k && sc.Scan(); i++ {
			f := strings.Fields(sc.Text())
			if len(f) != 3 || f[0] != "ok" {
				t.Fatalf("child: %s", sc.Text())
			}
			step, _ := strconv.Atoi(f[1])
			want[f[2]] = step
			next = step + 1
		}
		// The kill point: a random moment into the next snapshots.
		time.Sleep(time.Duration(rng.Intn(4000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() { // snapshots that returned before the kill landed
			f := strings.Fields(sc.Text())
			if len(f) == 3 && f[0] == "ok" {
				step, _ := strconv.Atoi(f[1])
				want[f[2]] = step
				next = step + 1
			}
		}
		_ = cmd.Wait()
		next += 13 // the killed snapshot's file may differ from its step's body: skip past it

		s, err := Open(home, ws)
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		list, err := s.List("crash")
		if err != nil {
			t.Fatalf("round %d: list: %v", round, err)
		}
		onHead := map[string]bool{}
		for _, sn := range list {
			onHead[sn.ID] = true
		}
		for id, step := range want {
			if !onHead[id] {
				t.Errorf("round %d: snapshot %s (step %d) returned but the head does not reach it", round, id[:8], step)
				continue
			}
			got, err := readSnapFile(s, id, fmt.Sprintf("f%02d.txt", step%13))
			if err != nil || string(got) != crashBody(step) {
				t.Errorf("round %d: snapshot %s (step %d): %q, %v", round, id[:8], step, got, err)
			}
		}
		fsck(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// Files of the killed snapshot's step must not be mistaken for
		// another step's in the next round: rewrite them all.
		for i := 0; i < 13; i++ {
			write(t, ws, fmt.Sprintf("f%02d.txt", i), "reset\n")
		}
	}
	if len(want) < 8 {
		t.Fatalf("only %d snapshots returned over all rounds; the test exercised little", len(want))
	}
	s := openStore(t, home, ws)
	if err := s.DeleteRun("crash"); err != nil {
		t.Fatal(err)
	}
	fsck(t, s)
}
