package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"agent/internal/event"
)

// EditFile is the edit_file tool: replace an exact piece of text in a file.
type EditFile struct{}

type editFileArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (EditFile) Name() string     { return "edit_file" }
func (EditFile) Risk() event.Risk { return event.RiskWrite }
func (EditFile) Description() string {
	return "Replace old_string with new_string in a file. old_string must match the file's text exactly " +
		"(including indentation) and occur exactly once, unless replace_all is true; include enough surrounding " +
		"lines to make it unique. Line endings are handled for you: a CRLF file stays CRLF. " +
		"With an empty old_string, creates the file (which must not exist yet) with new_string. " +
		"Read the file first to know its exact text."
}

func (EditFile) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"path":        strField("File path, relative to the workspace."),
		"old_string":  strField("Exact text to replace."),
		"new_string":  strField("Text to put in its place (must differ from old_string)."),
		"replace_all": boolField("Replace every occurrence instead of requiring exactly one (default false)."),
	}, "path", "old_string", "new_string")
}

func (t EditFile) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	p, err := t.plan(ctx, env, raw)
	if err != nil {
		return Result{}, err
	}
	if err := p.write(); err != nil {
		return Result{}, fmt.Errorf("edit_file: %s: %w", p.rel, err)
	}
	var out string
	if !p.old.found {
		out = fmt.Sprintf("created %s (%d lines)", p.rel, countLines(p.content))
	} else {
		noun := "occurrence"
		if p.count != 1 {
			noun += "s"
		}
		out = fmt.Sprintf("edited %s: replaced %d %s, ", p.rel, p.count, noun) + diffSummary(string(p.old.data), p.content)
	}
	return Result{Output: Truncate(out, MaxOutput), Changed: []string{p.rel}}, nil
}

// Preview returns the change the call would make, for an approval prompt.
func (t EditFile) Preview(ctx context.Context, env *Env, raw json.RawMessage) (string, error) {
	p, err := t.plan(ctx, env, raw)
	if err != nil {
		return "", err
	}
	return p.preview(), nil
}

// plan computes what an edit would write, without writing.
func (t EditFile) plan(ctx context.Context, env *Env, raw json.RawMessage) (*writePlan, error) {
	var a editFileArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return nil, err
	}
	if a.OldString == a.NewString && a.Path != "" {
		return nil, fmt.Errorf("edit_file: old_string and new_string are identical; nothing to change")
	}
	p, err := startWrite(ctx, env, t.Name(), a.Path, a.NewString)
	if err != nil {
		return nil, err
	}
	old, rel := p.old, p.rel
	switch {
	case !old.found && a.OldString == "":
		p.content = a.NewString
	case !old.found:
		return nil, fmt.Errorf("edit_file: %s: file not found (to create a file, use write_file or an empty old_string): %w", rel, fs.ErrNotExist)
	case a.OldString == "" && len(old.data) > 0:
		return nil, fmt.Errorf("edit_file: old_string is empty but %s already exists; give the text to replace, or use write_file to replace the whole file", rel)
	case isBinary(old.data):
		return nil, fmt.Errorf("edit_file: %s is a binary file; edit_file only edits text", rel)
	case a.OldString == "":
		p.content = a.NewString // an existing empty file
	default:
		text := string(old.data)
		oldS, newS := a.OldString, a.NewString
		if old.crlf {
			newS = toCRLF(newS)
			if !strings.Contains(text, oldS) {
				oldS = toCRLF(oldS) // the model sent LF for a CRLF file
			}
		}
		p.count = strings.Count(text, oldS)
		switch {
		case p.count == 0:
			return nil, fmt.Errorf("edit_file: old_string not found in %s; %s", rel, notFoundHint(text, a.OldString))
		case p.count > 1 && !a.ReplaceAll:
			return nil, fmt.Errorf("edit_file: old_string found %d times in %s; add context to make it unique or set replace_all", p.count, rel)
		}
		if a.ReplaceAll {
			p.content = strings.ReplaceAll(text, oldS, newS)
		} else {
			p.content = strings.Replace(text, oldS, newS, 1)
		}
	}
	return p, nil
}

// notFoundHint helps the model find why old_string did not match: it points at
// a line that matches old_string's first line up to whitespace.
func notFoundHint(text, oldS string) string {
	first := ""
	for _, l := range strings.Split(strings.ReplaceAll(oldS, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			first = strings.TrimSpace(l)
			break
		}
	}
	if first != "" {
		for i, l := range strings.Split(text, "\n") {
			if strings.Contains(strings.TrimSpace(l), first) {
				return fmt.Sprintf("its first line appears at line %d, so check the whitespace, indentation and the lines after it (read_file shows the exact text)", i+1)
			}
		}
	}
	return "read_file shows the file's current text"
}
