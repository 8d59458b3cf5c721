package policy

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"agent/internal/event"
)

// mainArgKey: the argument a rule's glob applies to, per tool.
var mainArgKey = map[string]string{
	"run_command": "command",
	"read_file":   "path",
	"write_file":  "path",
	"edit_file":   "path",
	"list_dir":    "path",
	"grep":        "path",
	"glob":        "pattern",
}

// MainArg returns the argument a rule's glob applies to: the command of
// run_command, the path of a file tool ("." when list_dir or grep give
// none), the pattern of glob; "" for update_plan, an unknown tool or
// arguments that are not a JSON object.
func MainArg(tool string, args json.RawMessage) string {
	key, ok := mainArgKey[tool]
	if !ok {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var s string
	if raw, ok := m[key]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	if tool == "list_dir" || tool == "grep" {
		return "."
	}
	return ""
}

// NormalizePath cleans a path the model gave, relative to the workspace
// (absolute paths are made relative when inside it), and reports whether it
// stays inside. It is lexical: symlinks are the tools' business.
func NormalizePath(workspace, p string) (rel string, inside bool) {
	if p == "" {
		p = "."
	}
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		if workspace == "" {
			return filepath.ToSlash(filepath.Clean(p)), false
		}
		r, err := filepath.Rel(workspace, p)
		if err != nil {
			return filepath.ToSlash(filepath.Clean(p)), false
		}
		p = r
	}
	rel = filepath.ToSlash(filepath.Clean(p))
	inside = rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
	if !inside && workspace != "" && !strings.HasPrefix(rel, "/") {
		rel = filepath.ToSlash(filepath.Join(workspace, rel)) // outside: show where it goes
	}
	return rel, inside
}

// MakeCall builds the Call for a tool call from the model's arguments.
// workspace is the absolute workspace root. risk "" means the tool's own.
func MakeCall(tool string, risk event.Risk, args json.RawMessage, workspace string) Call {
	c := Call{Tool: tool, Risk: risk}
	arg := MainArg(tool, args)
	switch tool {
	case "run_command":
		c.Command = arg
		c.InsideWorkspace = true
	case "glob":
		c.Path = arg
		c.InsideWorkspace = true
	case "update_plan":
		c.InsideWorkspace = true
	default:
		c.Path, c.InsideWorkspace = NormalizePath(workspace, arg)
	}
	return c
}
