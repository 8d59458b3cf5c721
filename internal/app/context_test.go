package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WarmRepoMap fills the session's tag cache in the background (so the
// first request does not wait for a cold parse), with secrets in the
// workspace's signatures redacted before they reach the disk; Close waits
// for it.
func TestWarmRepoMapFillsTheCacheRedacted(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := "ghp_" + "Zq8vT3kLm9Xw2Rb7Nc4Hd6Jf1Gs5Pa0Ye3Ui"
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.go", i)), []byte(fmt.Sprintf("package p\n\nfunc F%d() {}\n", i)), 0o644)
	}
	os.WriteFile(filepath.Join(ws, "tok.go"), []byte("package p\n\nconst Token = \""+secret+"\"\n"), 0o644)
	home := filepath.Join(t.TempDir(), "state")
	svc, err := Open(context.Background(), Options{Settings: &Settings{Workspace: ws, Home: home, Model: "m", BaseURL: "http://127.0.0.1:1/v1", Approval: "ask"}})
	if err != nil {
		t.Fatal(err)
	}
	svc.WarmRepoMap()
	svc.WarmRepoMap() // once
	<-svc.warmDone
	svc.Close()

	st, err := openJournal(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.RepomapCache(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	// Go files live in the per-root snapshot (no rows of their own).
	snaps, _ := filepath.Glob(filepath.Join(home, "repomap", "*.snap"))
	if c.Len() < 6 && len(snaps) == 0 {
		t.Errorf("the warm-up cached %d files and wrote no snapshot, want the 6 of the workspace", c.Len())
	}
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && contains(b, secret) {
				t.Errorf("%s holds the secret of a signature in plain text", p)
			}
		}
		return nil
	})
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
