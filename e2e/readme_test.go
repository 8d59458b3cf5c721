package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// readmeMarker, on the line before a shell block of README.md, says the
// block runs as written with no API key; TestReadmeExamples runs it.
const readmeMarker = "<!-- readme-test:"

// readmeBlock is one marked shell block.
type readmeBlock struct {
	line int // of the opening fence
	text string
}

// The README's marked shell examples run as written, in order, from the
// repository's root, as a new user would run them: a fresh HOME (so `make
// install` puts agent in ~/.local/bin, which is first on PATH), no API key
// or agent variable in the environment, bash -e so that any failing
// command fails the block. The e2e binary is on PATH after ~/.local/bin,
// for a block that uses `agent` without installing it. The Go caches are
// the caller's, so `make build` does not start cold.
func TestReadmeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent with make (-short)")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	blocks := readmeBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) < 2 {
		t.Fatalf("README.md has %d blocks marked %q; the set-up and the replay example should be", len(blocks), readmeMarker)
	}
	home := t.TempDir()
	env := readmeEnv(t, home)
	for _, b := range blocks {
		for _, bad := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "sk-"} {
			if strings.Contains(b.text, bad) {
				t.Errorf("README.md:%d is marked as needing no key but mentions %s", b.line, bad)
			}
		}
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", b.text)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README.md:%d, run as written, failed: %v\n--- the block\n%s--- its output\n%s", b.line, err, b.text, out)
		}
		t.Logf("README.md:%d ran (%d bytes of output)", b.line, len(out))
		if strings.Contains(b.text, "make install") {
			if _, err := os.Stat(filepath.Join(home, ".local", "bin", "agent")); err != nil {
				t.Errorf("README.md:%d: make install left no agent in ~/.local/bin: %v", b.line, err)
			}
		}
	}
}

// The README's markdown is well formed where a broken fence does most
// harm: every code fence is closed, and a marked block is a shell block.
func TestReadmeFencesClosed(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	readmeBlocks(t, filepath.Join(filepath.Dir(filepath.Dir(file)), "README.md"))
}

// readmeBlocks returns the marked shell blocks of the file, failing the
// test on an unclosed fence or a marker not followed by a shell block.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks           []readmeBlock
		in, marked, want bool
		open             int
		text             strings.Builder
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence := strings.HasPrefix(strings.TrimLeft(line, " "), "```")
		switch {
		case !in && fence:
			in, open = true, n
			info := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`"))
			if want && info != "sh" && info != "bash" {
				t.Errorf("%s:%d: a block marked %q is a %q block, not sh", path, n, readmeMarker, info)
			}
			marked, want = want, false
			text.Reset()
		case in && fence:
			in = false
			if marked {
				blocks = append(blocks, readmeBlock{line: open, text: text.String()})
			}
		case in:
			text.WriteString(line + "\n")
		case strings.HasPrefix(line, readmeMarker):
			want = true
		case want && strings.TrimSpace(line) != "":
			t.Errorf("%s:%d: %q is not followed by a code block", path, n, readmeMarker)
			want = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if in {
		t.Errorf("%s:%d: this code fence is never closed: the rest of the file renders as code", path, open)
	}
	return blocks
}

// readmeEnv is the caller's environment with a new HOME and state, no
// key or agent setting, and the caller's Go caches.
func readmeEnv(t *testing.T, home string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "AGENT_"),
			strings.HasPrefix(k, "XDG_"), k == "HOME", k == "PATH", k == "NO_COLOR":
			continue
		}
		env = append(env, kv)
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	return append(env, "HOME="+home,
		"PATH="+filepath.Join(home, ".local", "bin")+string(os.PathListSeparator)+filepath.Dir(agentBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}
