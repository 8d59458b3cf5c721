package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBlocked(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	outside := t.TempDir()
	outside, _ = filepath.EvalSymlinks(outside)
	os.Symlink(outside, filepath.Join(ws, "lnk"))
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	sb, _ := New(Options{Mode: ModeWorkspaceWrite, Workspace: ws, TempRoot: t.TempDir(), Getenv: func(string) string { return "" },
		Probe: func() Capabilities { return Capabilities{LandlockABI: 7, UserNS: true} }})
	defer sb.Close()
	for _, tc := range []struct {
		name, out, cmd string
		code           int
		want           []string // kind:target
	}{
		{"touch", "touch: cannot touch '/root/x': Permission denied\n", "touch /root/x", 1, []string{"write:/root/x"}},
		{"redirect", "bash: line 1: /etc/x: Permission denied\n", "echo > /etc/x", 1, []string{"write:/etc/x"}},
		{"relative through a symlink", "touch: cannot touch 'lnk/f': Permission denied\n", "touch lnk/f", 1, []string{"write:" + outside + "/f"}},
		{"python", "PermissionError: [Errno 13] Permission denied: '/opt/y'\n", "python3 w.py", 1, []string{"write:/opt/y"}},
		{"inside the workspace is not the sandbox", "touch: cannot touch 'ro/f': Permission denied\n", "touch ro/f", 1, nil},
		{"curl", "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server\n", "curl http://127.0.0.1:8080", 7, []string{"network:127.0.0.1:8080"}},
		{"silent curl", "", "curl -s https://example.com/x", 6, []string{"network:example.com"}},
		{"go", "dial tcp 10.0.0.1:443: connect: network is unreachable\n", "go run .", 1, []string{"network:10.0.0.1:443"}},
		{"a network tool that worked", "", "curl -s http://x", 0, nil},
		{"nothing", "ok\n", "ls", 0, nil},
		{"proc is not a write", "ls: cannot open directory '/proc/1/fd': Permission denied\n", "ls /proc/1/fd", 2, nil},
		{"a protected git hook", "bash: line 1: .git/hooks/pre-commit: Read-only file system\n", "echo x > .git/hooks/pre-commit", 1,
			[]string{"write:" + ws + "/.git/hooks/pre-commit"}},
	} {
		got := sb.Blocked(tc.out, ws, tc.cmd, tc.code)
		var kinds []string
		for _, b := range got {
			kinds = append(kinds, b.Kind+":"+b.Target)
			if b.Allow == "" {
				t.Errorf("%s: block %v says not how to allow it", tc.name, b)
			}
		}
		if strings.Join(kinds, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: blocked %q, want %q", tc.name, kinds, tc.want)
		}
	}
	note := Note(sb.Blocked("touch: cannot touch '/root/x': Permission denied", ws, "touch /root/x", 1), "workspace-write", true)
	for _, want := range []string{"blocked:\n  writing /root/x", "writable = [\"/root\"]", `"outside_sandbox": true`} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if Note(nil, "read-only", true) != "" {
		t.Error("a note without blocks")
	}
}
