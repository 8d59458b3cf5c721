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
	p, err := t.plan(ctx, env, raw)
	if err != nil {
		return Result{}, err
	}
	if p.old.found && string(p.old.data) == p.content {
		return Result{Output: fmt.Sprintf("%s unchanged (the content is identical)", p.rel)}, nil
	}
	if err := p.write(); err != nil {
		return Result{}, fmt.Errorf("write_file: %s: %w", p.rel, err)
	}
	var out string
	if !p.old.found {
		out = fmt.Sprintf("created %s (%d lines, %d bytes)", p.rel, countLines(p.content), len(p.content))
	} else {
		out = fmt.Sprintf("wrote %s (%d lines, %d bytes", p.rel, countLines(p.content), len(p.content))
		if p.old.crlf {
			out += ", CRLF line endings kept"
		}
		out += ")\n" + diffSummary(string(p.old.data), p.content)
	}
	return Result{Output: Truncate(out, MaxOutput), Changed: []string{p.rel}}, nil
}

// Preview returns the change the call would make, for an approval prompt.
func (t WriteFile) Preview(ctx context.Context, env *Env, raw json.RawMessage) (string, error) {
	p, err := t.plan(ctx, env, raw)
	if err != nil {
		return "", err
	}
	return p.preview(), nil
}

// plan computes what a write would put on disk, without writing.
func (t WriteFile) plan(ctx context.Context, env *Env, raw json.RawMessage) (*writePlan, error) {
	var a writeFileArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return nil, err
	}
	p, err := startWrite(ctx, env, t.Name(), a.Path, a.Content)
	if err != nil {
		return nil, err
	}
	p.content = a.Content
	if p.old.crlf {
		p.content = toCRLF(p.content)
	}
	return p, nil
}
