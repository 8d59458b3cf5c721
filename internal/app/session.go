package app

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"agent/internal/agent/anthropic"
	"agent/internal/agent/openai"
	"agent/internal/event"
	"agent/internal/gitignore"
	"agent/internal/protocol"
)

// Session is what a frontend shows to orient a person (the TUI's first
// screen and /status): the workspace and its git branch, the model and
// where it is served, the approval mode, the sandbox, the journal. It
// reads only the repository's .git entries and HEAD: no git process.
func (s *Service) Session() protocol.SessionInfo {
	set := s.set
	info := protocol.SessionInfo{Workspace: set.Workspace, Name: filepath.Base(set.Workspace), Model: set.Model,
		Approval: string(set.Approval), Journal: filepath.Join(set.Home, "agent.db")}
	info.Git, info.Branch = gitBranch(set.Workspace)
	info.Provider, info.Endpoint = string(set.Provider), endpointHost(set)
	if set.Replay != "" {
		info.Provider, info.Endpoint = "replay", filepath.Base(set.Replay)
	}
	info.Sandbox = s.sb.Mode().String()
	if req := s.sb.Requested(); req != s.sb.Mode() {
		info.SandboxNote = req.String() + " was asked for but cannot be enforced here"
	}
	return info
}

// endpointHost is the host (and port) of the model endpoint.
func endpointHost(set *Settings) string {
	base := set.BaseURL
	if base == "" {
		base = openai.DefaultBaseURL
		if set.Provider == event.ProviderAnthropic {
			base = anthropic.DefaultBaseURL
		}
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Host
}

// gitBranch reports whether workspace is in a git repository, and its
// branch: "detached at 1a2b3c4" for a detached HEAD, "" when HEAD cannot
// be read.
func gitBranch(workspace string) (bool, string) {
	top := gitignore.Locate(workspace).Top
	if top == "" {
		return false, ""
	}
	gitDir := filepath.Join(top, ".git")
	if fi, err := os.Stat(gitDir); err == nil && !fi.IsDir() {
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return true, ""
		}
		line, _, _ := strings.Cut(string(b), "\n")
		d, _ := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if d = strings.TrimSpace(d); !filepath.IsAbs(d) {
			d = filepath.Join(top, d)
		}
		gitDir = d
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return true, ""
	}
	head := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		return true, strings.TrimPrefix(strings.TrimSpace(ref), "refs/heads/")
	}
	if len(head) >= 7 {
		return true, "detached at " + head[:7]
	}
	return true, ""
}
