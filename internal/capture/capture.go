// Package capture owns `agent eval capture`: it turns a journaled run into an
// eval task in the format of evals/README.md — fixture/ (the workspace
// before the run's first change), turns.json (the model's answers, from the
// journal's assistant_message events, already redacted), task.toml (the
// prompt, the policy with the person's decisions, and an [expect] section
// left for a person to fill in, with the observed outcome as comments).
//
// It reads a run's events and a fixture source and writes one new task
// directory, all or nothing; it never overwrites an existing directory and
// never touches the store, the shadow repository or the workspace.
package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"agent/internal/diagnose"
	"agent/internal/event"
	"agent/internal/replay"
)

// ErrExists is returned when the task directory is already there.
var ErrExists = errors.New("task directory exists")

// ErrNoFixture is returned by a fixture source that has nothing to give.
var ErrNoFixture = errors.New("no fixture")

// File is one fixture file: a slash path relative to the workspace, its
// mode (only the executable bit and fs.ModeSymlink matter) and content.
type File struct {
	Path string
	Mode fs.FileMode
	Data []byte
}

// Fixture yields the files the task starts from.
type Fixture interface {
	// Files calls fn with every file; it stops at fn's first error.
	Files(ctx context.Context, fn func(File) error) error
	// Describe says where the files come from, for a comment in task.toml.
	Describe() string
}

// Options says what to capture and where.
type Options struct {
	RunID  string
	Events []event.Event // the run's whole journal
	// Fixture gives the files of fixture/.
	Fixture Fixture
	// Dir is the directory the task is created in; Name its name (default:
	// "run-" and the run id).
	Dir, Name string
	// Changed lists the files the run changed (for a comment); nil: taken
	// from the journal's checkpoint events.
	Changed []string
	// Redactor, when set, redacts the fixture's text files: a captured task
	// is meant to be shared, and the checkpoint holds the files as they were.
	Redactor Redactor
}

// Redactor removes secrets from text.
type Redactor interface {
	Redact(s string) string
}

// Task is what Capture wrote.
type Task struct {
	RunID    string // the run captured
	Dir      string // the new task directory
	Turns    int
	Files    int      // fixture files written
	Skipped  []string // fixture entries left out (symlinks)
	Redacted []string // fixture files with a secret redacted
	Outcome  Outcome
}

// Outcome is what the run did, as the task's comments record it.
type Outcome struct {
	Status  event.Status
	Failure *event.FailureInfo
	Changed []string
}

// ValidName reports whether s can name a task: letters, digits, '.', '_' and '-', starting with a letter or
// digit, at most 100 bytes.
func ValidName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i, c := range []byte(s) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return false
		}
	}
	return true
}

// Capture writes the task of opt's run into opt.Dir/opt.Name: first into a
// temporary directory beside it, renamed into place when complete, so a
// failure leaves nothing behind. It refuses (ErrExists) when the target
// exists.
func Capture(ctx context.Context, opt Options) (*Task, error) {
	name := opt.Name
	if name == "" {
		name = "run-" + opt.RunID
	}
	if !ValidName(name) {
		return nil, fmt.Errorf("task name %q: use letters, digits, '.', '_' and '-' (no '/'), starting with a letter or digit; pass --name", name)
	}
	r, err := read(opt.RunID, opt.Events)
	if err != nil {
		return nil, err
	}
	if opt.Changed != nil {
		r.outcome.Changed = opt.Changed
	}
	if opt.Fixture == nil {
		return nil, errors.New("capture: no fixture source")
	}
	target := filepath.Join(opt.Dir, name)
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("%s: %w; choose another --name or remove it", target, ErrExists)
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	tmp, err := os.MkdirTemp(opt.Dir, ".capture-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	task := &Task{RunID: opt.RunID, Dir: target, Turns: len(r.script.Turns), Outcome: r.outcome}
	if err := writeFixture(ctx, tmp, opt.Fixture, opt.Redactor, task); err != nil {
		return nil, err
	}
	turns, err := json.MarshalIndent(r.script, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("capture: turns: %w", err)
	}
	if _, err := replay.Parse(turns); err != nil { // what the eval will read
		return nil, fmt.Errorf("capture: the turns do not make a replay script: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "turns.json"), append(turns, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	toml := r.taskTOML(opt.Fixture.Describe(), task)
	if err := os.WriteFile(filepath.Join(tmp, "task.toml"), []byte(toml), 0o644); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it 0700
		return nil, fmt.Errorf("capture: %w", err)
	}
	if err := renameNoReplace(tmp, target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: %w; choose another --name or remove it", target, ErrExists)
		}
		return nil, fmt.Errorf("capture: %w", err)
	}
	done = true
	return task, nil
}

// writeFixture writes the fixture's files beneath dir/fixture (an os.Root:
// a path from the source cannot leave it), text files through red. Symlinks
// are left out and named in the task: the eval copies fixture/ with
// os.CopyFS, which refuses them.
func writeFixture(ctx context.Context, dir string, src Fixture, red Redactor, task *Task) error {
	fx := filepath.Join(dir, "fixture")
	if err := os.Mkdir(fx, 0o755); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	root, err := os.OpenRoot(fx)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	defer root.Close()
	err = src.Files(ctx, func(f File) error {
		if f.Mode&fs.ModeSymlink != 0 || f.Mode&fs.ModeType != 0 {
			task.Skipped = append(task.Skipped, f.Path)
			return nil
		}
		rel := filepath.FromSlash(f.Path)
		if d := filepath.Dir(rel); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("fixture %s: %w", f.Path, err)
			}
		}
		mode := fs.FileMode(0o644)
		if f.Mode&0o111 != 0 {
			mode = 0o755
		}
		data := f.Data
		if red != nil && utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
			if r := red.Redact(string(data)); r != string(data) {
				data = []byte(r)
				task.Redacted = append(task.Redacted, f.Path)
			}
		}
		if err := root.WriteFile(rel, data, mode); err != nil {
			return fmt.Errorf("fixture %s: %w", f.Path, err)
		}
		if err := root.Chmod(rel, mode); err != nil { // whatever the umask
			return fmt.Errorf("fixture %s: %w", f.Path, err)
		}
		task.Files++
		return nil
	})
	if err != nil {
		return fmt.Errorf("capture: %s: %w", src.Describe(), err)
	}
	return nil
}

// run is what a journal says that a task needs.
type run struct {
	id        string
	start     *event.RunStartedData
	prompt    string
	later     []string // the person's later messages (not replayed)
	script    replay.Script
	decisions []decision
	outcome   Outcome
	firstCP   string
	resumes   int
}

type decision struct {
	call, decision, note, scope string
}

// read folds a journal into what the task needs.
func read(runID string, evs []event.Event) (*run, error) {
	r := &run{id: runID, script: replay.Script{Turns: []replay.Turn{}}}
	changed := map[string]bool{}
	var lastErr *event.ErrorData
	for _, ev := range evs {
		switch d := ev.Data.(type) {
		case *event.RunStartedData:
			if r.start == nil {
				r.start = d
			}
		case *event.UserMessageData:
			if r.prompt == "" && len(r.later) == 0 {
				r.prompt = d.Text
			} else {
				r.later = append(r.later, d.Text)
			}
		case *event.AssistantMessageData:
			t := replay.Turn{Text: d.Text}
			for _, c := range d.ToolCalls {
				t.ToolCalls = append(t.ToolCalls, replay.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
			if d.Tokens != nil {
				t.Usage = &replay.Usage{Input: d.Tokens.Input, Output: d.Tokens.Output}
			}
			r.script.Turns = append(r.script.Turns, t)
			lastErr = nil
		case *event.ApprovalData:
			// the person's own decisions; the calls a denial cancelled (Reason) follow from it
			if d.Source == event.SourceUser && d.Reason == "" {
				dc := decision{call: d.CallID, decision: string(d.Decision), note: d.Note}
				if d.Decision == event.Allow {
					dc.scope = string(d.Scope)
				}
				r.decisions = append(r.decisions, dc)
			}
		case *event.CheckpointData:
			if r.firstCP == "" {
				r.firstCP = d.CheckpointID
			}
			for _, f := range d.Files {
				changed[f] = true
			}
		case *event.RollbackData:
			for _, f := range d.Files {
				changed[f] = true
			}
		case *event.ErrorData:
			lastErr = d
		case *event.ResumeData:
			r.resumes++
		case *event.RunFinishedData:
			r.outcome.Status = d.Status
		}
	}
	if r.start == nil || r.prompt == "" {
		return nil, fmt.Errorf("run %s has no prompt on record (run_started and the first user_message): nothing to capture", runID)
	}
	if r.outcome.Status == "" {
		return nil, fmt.Errorf("run %s has not finished (no run_finished): let it end, or resume it, before capturing it", runID)
	}
	r.outcome.Failure = diagnose.Diagnose(evs)
	if lastErr != nil && lastErr.Class == event.ClassModel && r.outcome.Status == event.StatusFailed {
		// The model request that failed gets an answer that fails the same
		// way at once: a 400 is not retried.
		msg := strings.TrimPrefix(lastErr.Message, string(event.ClassModel)+" error: ")
		r.script.Turns = append(r.script.Turns, replay.Turn{HTTPStatus: 400, Error: oneLine(msg, 300)})
	}
	for f := range changed {
		r.outcome.Changed = append(r.outcome.Changed, f)
	}
	sort.Strings(r.outcome.Changed)
	return r, nil
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// FirstCheckpoint is the id of the run's first checkpoint: the workspace
// before its first change ("" when it made none).
func FirstCheckpoint(evs []event.Event) string {
	for _, ev := range evs {
		if d, ok := ev.Data.(*event.CheckpointData); ok && d.CheckpointID != "" {
			return d.CheckpointID
		}
	}
	return ""
}
