package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"agent/internal/event"
)

// WriteFile is the write_file tool: create or replace a whole file.
type WriteFile struct{}

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (WriteFile) Name() string     { return "write_file" }
func (WriteFile) Risk() event.Risk { return event.RiskWrite }
func (WriteFile) Description() string {
	return "Create a file, or replace its whole content. Missing parent directories are created. " +
		"An existing file keeps its permissions and its line endings (CRLF files stay CRLF). " +
		"Prefer edit_file to change part of an existing file. Paths are relative to the workspace; " +
		"files inside .git cannot be written."
}

func (WriteFile) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"path":    strField("File path, relative to the workspace."),
		"content": strField("The complete new content of the file."),
	}, "path", "content")
}

func (t WriteFile) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a writeFileArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	if err := checkEnv(t.Name(), env); err != nil {
		return Result{}, err
	}
	if a.Path == "" {
		return Result{}, &ArgError{Tool: t.Name(), Field: "path", Problem: `missing required field "path"`}
	}
	if err := refusePlaceholder(t.Name(), a.Content); err != nil {
		return Result{}, err
	}
	abs, rel, err := ResolveWrite(env.Workspace, a.Path)
	if err != nil {
		return Result{}, fmt.Errorf("write_file: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("write_file: %w", err)
	}
	old, err := loadExisting(abs, rel)
	if err != nil {
		return Result{}, fmt.Errorf("write_file: %w", err)
	}
	content := a.Content
	if old.crlf {
		content = toCRLF(content)
	}
	if old.found && string(old.data) == content {
		return Result{Output: fmt.Sprintf("%s unchanged (the content is identical)", rel)}, nil
	}
	if err := writeAtomic(abs, []byte(content), old.mode); err != nil {
		return Result{}, fmt.Errorf("write_file: %s: %w", rel, err)
	}
	var out string
	if !old.found {
		out = fmt.Sprintf("created %s (%d lines, %d bytes)", rel, countLines(content), len(content))
	} else {
		out = fmt.Sprintf("wrote %s (%d lines, %d bytes", rel, countLines(content), len(content))
		if old.crlf {
			out += ", CRLF line endings kept"
		}
		out += ")\n" + diffSummary(string(old.data), content)
	}
	return Result{Output: Truncate(out, MaxOutput), Changed: []string{rel}}, nil
}
