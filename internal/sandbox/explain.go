package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"agent/internal/lazyre"
	"slices"
	"strings"

	"agent/internal/event"
)

// What a program prints when the sandbox refused it something. Landlock
// refuses with EACCES ("Permission denied") and EXDEV for a rename it may
// not make; a write beneath a read-only bind shows as EROFS.
var (
	// 'PATH': Permission denied, PATH: Permission denied, "PATH": ...
	deniedQuoted = lazyre.New(`['"‘“]([^'"’”\n]+)['"’”][^\n]*?(?:Permission denied|Read-only file system|Operation not permitted)`)
	deniedBare   = lazyre.New(`(?:^|[\s:])(/[^\s:'"]+|\.{0,2}/?[^\s:'"/]+(?:/[^\s:'"]+)+): (?:Permission denied|Read-only file system|Operation not permitted)`)
	// errno texts of the common runtimes (Python, Node): the path after.
	deniedErrno = lazyre.New(`(?:EACCES|EPERM|EROFS|Permission denied:|Read-only file system:)[^\n]*?['"]([^'"\n]+)['"]`)
	netFailure  = lazyre.New(`(?i)network is unreachable|couldn't connect to server|failed to connect to|could not resolve host|temporary failure in name resolution|name or service not known|connection refused|no route to host|ENETUNREACH|ECONNREFUSED|EAI_AGAIN|dial tcp`)
	// commands that use the network; a URL's host and port.
	netTool = lazyre.New(`(?:^|[\s;&|(])(?:curl|wget|ssh|scp|rsync|nc|ncat|telnet|ping|dig|nslookup|git\s+(?:clone|fetch|pull|push|ls-remote)|npm\s+(?:install|i|ci|publish)|pip3?\s+install|go\s+(?:get|mod\s+download|install))\b|https?://`)
	urlHost = lazyre.New(`https?://([^/\s'"]+)`)
	// curl: "Failed to connect to HOST port N"; Go: "dial tcp HOST:PORT"; wget: "Connecting to HOST (HOST)|IP|:PORT".
	netTarget = lazyre.New(`(?i)(?:failed to connect to ([^\s]+) port (\d+)|dial tcp ([^\s:]+:\d+)|could not resolve host: ([^\s]+)|connect(?:ing)? to ([^\s]+?):(\d+))`)
)

// Blocked reads a sandboxed command's output (and exit code) for what the
// sandbox stopped: paths it may not write (outside every writable
// directory), and, without network, connections. cwd resolves relative
// paths. Each block says how to allow it.
func (s *Sandbox) Blocked(output, cwd, command string, exitCode int) []event.SandboxBlock {
	if !s.Active() {
		return nil
	}
	var out []event.SandboxBlock
	seen := map[string]bool{}
	addPath := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		p = resolveExisting(filepath.Clean(p)) // where a symlink leads
		if seen[p] || s.mayWrite(p) || kernelPath(p) {
			return
		}
		seen[p] = true
		out = append(out, event.SandboxBlock{Kind: "write", Target: p, Allow: s.allowWrite(p)})
	}
	if p, ok := s.undoCommonDir(); ok {
		seen[p] = true
		out = append(out, event.SandboxBlock{Kind: "write", Target: p, Allow: s.allowWrite(p) +
			" (the sandbox removed the file the command wrote: git would have taken its hooks and config from the directory it names)"})
	}
	for _, b := range s.undoNewGitlinks() {
		seen[b.Target] = true
		out = append(out, b)
	}
	for _, re := range []*lazyre.Regexp{deniedQuoted, deniedBare, deniedErrno} {
		for _, m := range re.FindAllStringSubmatch(output, 20) {
			addPath(m[1])
		}
	}
	if !s.network && (netFailure.MatchString(output) || exitCode != 0 && netTool.MatchString(command)) {
		target := "a network connection"
		if m := urlHost.FindStringSubmatch(command); m != nil {
			target = m[1]
		}
		if m := netTarget.FindStringSubmatch(output); m != nil {
			switch {
			case m[1] != "":
				target = m[1] + ":" + m[2]
			case m[3] != "":
				target = m[3]
			case m[4] != "":
				target = m[4] + " (name lookup)"
			case m[5] != "":
				target = m[5] + ":" + m[6]
			}
		}
		out = append(out, event.SandboxBlock{Kind: "network", Target: target,
			Allow: "commands have no network in the sandbox (servers on this machine's loopback included); set network = true under [sandbox] in your user config file, or run with --sandbox off"})
	}
	return out
}

// undoCommonDir removes a commondir file a command wrote into the
// workspace's own .git directory (a repository's .git never has one; a
// linked worktree's .git is a file, left alone): git would read the hooks
// and config of the directory it names, which no mount can protect ahead
// of time. It reports the path it removed.
func (s *Sandbox) undoCommonDir() (string, bool) {
	if s.mode != ModeWorkspaceWrite || s.ws == "" {
		return "", false
	}
	g := filepath.Join(s.ws, ".git")
	if st, err := os.Lstat(g); err != nil || !st.IsDir() {
		return "", false
	}
	p := filepath.Join(g, "commondir")
	if _, err := os.Lstat(p); err != nil {
		return "", false
	}
	if err := os.Remove(p); err != nil {
		return "", false
	}
	return p, true
}

// kernelPath: /proc and /sys refuse for reasons of their own (another
// process's details, Landlock's ptrace scoping); no writable = [...] would
// help, so they are not reported as blocked writes.
func kernelPath(p string) bool {
	return p == "/proc" || p == "/sys" || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/sys/")
}

// mayWrite reports whether the sandbox lets a command write p.
func (s *Sandbox) mayWrite(p string) bool {
	if s.mode == ModeReadOnly {
		return false
	}
	r := resolveExisting(p)
	if s.protected(r) {
		return false
	}
	for _, d := range s.readOnly {
		if r == d || strings.HasPrefix(r, d+string(filepath.Separator)) {
			return false
		}
	}
	for _, w := range s.writable {
		if r == w || strings.HasPrefix(r, w+string(filepath.Separator)) {
			return true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.temps {
		if r == d || strings.HasPrefix(r, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolveExisting resolves the symlinks of p's longest existing prefix.
func resolveExisting(p string) string {
	rest := []string{}
	for q := p; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			slices.Reverse(rest)
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(q) == q {
			return p
		}
		rest = append(rest, filepath.Base(q))
	}
}

func (s *Sandbox) allowWrite(p string) string {
	if s.protected(resolveExisting(p)) {
		return "the sandbox keeps the workspace's .git hooks, config and info read-only (git would run what they hold " +
			"at your next git command, outside any sandbox); git add, commit, stash and checkout still work. If this change " +
			"is wanted, ask the person to approve running the command outside the sandbox (outside_sandbox: true), or to make it themselves"
	}
	if s.mode == ModeReadOnly {
		return "the sandbox is read-only: commands write nothing but $TMPDIR; run with --sandbox workspace-write to let them write the workspace"
	}
	return fmt.Sprintf("the sandbox (workspace-write) lets commands write only the workspace, $TMPDIR and build caches; "+
		"add the directory to writable = [...] under [sandbox] in your user config file (for example writable = [%q]), or run with --sandbox off",
		filepath.Dir(p))
}

// Note renders blocks for the command's result, with how to allow each,
// and, under ask, how to re-run the command outside the sandbox.
func Note(blocks []event.SandboxBlock, mode string, escalation bool) string {
	if len(blocks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nnote: the OS sandbox (%s) blocked:", mode)
	for i, bl := range blocks {
		if i == 5 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(blocks)-i)
			break
		}
		what := "writing " + bl.Target
		if bl.Kind == "network" {
			what = "connecting to " + bl.Target
		}
		fmt.Fprintf(&b, "\n  %s", what)
	}
	seen := map[string]bool{}
	for _, bl := range blocks {
		if !seen[bl.Allow] {
			seen[bl.Allow] = true
			fmt.Fprintf(&b, "\n  to allow it: %s", bl.Allow)
		}
	}
	if escalation {
		b.WriteString("\n  If the command must run outside the sandbox, call run_command again with the same command and " +
			`"outside_sandbox": true; a person must approve that.`)
	}
	return b.String()
}
