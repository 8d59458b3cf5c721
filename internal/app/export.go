package app

// exportRun of a run's events as redacted JSON lines (agent export, the TUI's
// /export): trace sampling, the metadata-only mode, redaction of every line
// with the secrets known now, the atomic file write and the audit row.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"agent/internal/atomicfile"
	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/redact"
	"agent/internal/store"
)

// bigArgument is the size over which a string in a tool call's arguments
// (a file's content, an edit's text) is left out of a metadata-only export.
const bigArgument = 256

// ExportTarget is where Export writes: exactly one of W and Path.
type ExportTarget struct {
	// W receives the lines as they are rendered (e.g. stdout). A failed
	// write may leave part of the export there.
	W io.Writer
	// Name is how the audit row and ExportResult.Where name W; default
	// "stdout".
	Name string
	// Path is a file, replaced atomically with mode 0600 (temporary file,
	// fsync, rename, fsync of the directory) once the whole export is
	// rendered: a failure leaves no file and no partial one. A relative path
	// is taken from the process's working directory. Its directory must
	// exist: a missing one is an *ExportPathError, never created.
	Path string
}

// ExportOptions configure Export.
type ExportOptions struct {
	// By names the person in the audit row; default Whoami().
	By string
	// Warn receives the warnings of the workspace's configuration, and the
	// note that a read-only state directory could not record the export (nil:
	// dropped).
	Warn func(string)
}

// ExportMode says how much of the content an export carries.
type ExportMode int

const (
	// ExportFull carries every event in full (redacted).
	ExportFull ExportMode = iota
	// ExportMetadataOnly leaves out tool output and large tool-call
	// arguments, noting their sizes: the run was not sampled.
	ExportMetadataOnly
)

func (m ExportMode) String() string {
	if m == ExportMetadataOnly {
		return "metadata only"
	}
	return "full"
}

// ExportResult says what Export wrote.
type ExportResult struct {
	RunID    string     // the run's full id
	Where    string     // the absolute path written, or the target's Name
	Events   int        // lines written
	Withheld int        // events whose content was withheld (see Export)
	Bytes    int64      // bytes written
	Mode     ExportMode // full or metadata only
	Sample   float64    // [trace] sample of the run's workspace
}

// ExportPathProblem is what is wrong with an export's file path.
type ExportPathProblem int

const (
	// ExportPathInvalid: the path cannot be made absolute.
	ExportPathInvalid ExportPathProblem = iota
	// ExportDirMissing: the file's directory does not exist.
	ExportDirMissing
	// ExportPathIsDir: the path names a directory.
	ExportPathIsDir
	// ExportFileExists: ExportFile was given a path to a file that exists.
	ExportFileExists
)

// ExportPathError is an export file path that cannot be written; it comes
// wrapped in a *UsageError. Frontends may phrase it with their own flag
// names from the fields.
type ExportPathError struct {
	Path    string // as given
	Abs     string // absolute (empty for ExportPathInvalid)
	Problem ExportPathProblem
	Suggest string // for ExportPathIsDir: a file in that directory named after the run
	Err     error  // for ExportPathInvalid
}

func (e *ExportPathError) Error() string {
	switch e.Problem {
	case ExportDirMissing:
		dir := filepath.Dir(e.Abs)
		return fmt.Sprintf("export file %s: the directory %s does not exist: create it (mkdir -p %s) or fix the path", e.Path, dir, dir)
	case ExportPathIsDir:
		return fmt.Sprintf("export file %s is a directory: give a file name, e.g. %s", e.Path, e.Suggest)
	case ExportFileExists:
		return fmt.Sprintf("export file %s exists: give another path, or remove it first", e.Path)
	}
	return fmt.Sprintf("export file %s: %v", e.Path, e.Err)
}

func (e *ExportPathError) Unwrap() error { return e.Err }

// exportRun writes the events of the run with that id (or unique id prefix) as
// JSON lines, the objects agent run --json prints, and records the export
// in the audit log (who, where to, how many events and bytes, full or
// metadata only).
//
// Everything in the journal has passed redaction already; Export redacts
// every string of every event again, and each encoded line once more, with
// the redaction key, the environment and the .env files of now, so a secret
// learned since the run was journaled is caught too. A line whose redacted
// form would not be valid JSON has its content withheld (counted in
// ExportResult.Withheld).
//
// Sampling: [trace] sample (0 to 1) in the configuration of the run's
// workspace is the share of runs whose exports carry full content, chosen
// per run by a keyed hash of its id (SampledFull); the other runs export
// metadata only (ExportMetadataOnly).
//
// When the audit row cannot be written, a file target is removed again and
// the error says so. Errors: store.ErrNotFound (wrapped or not) for an
// unknown id, a *UsageError for a bad configuration, redaction key or file
// path (then *ExportPathError), anything else is a failure.
func exportRun(ctx context.Context, st *store.Store, runID string, to ExportTarget, opt ExportOptions) (ExportResult, error) {
	if (to.W == nil) == (to.Path == "") {
		return ExportResult{}, errors.New("app: export: give exactly one of a writer and a file path")
	}
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return ExportResult{}, err
	}
	res := ExportResult{RunID: run.ID, Where: to.Name}
	if to.W != nil && res.Where == "" {
		res.Where = "stdout"
	}
	if to.Path != "" {
		if res.Where, err = exportPath(to, run.ID); err != nil {
			return ExportResult{}, err
		}
	}
	cfg, warnings, err := config.Load(run.Workspace, config.Sources{})
	if err != nil {
		return ExportResult{}, &UsageError{Err: err}
	}
	for _, w := range warnings {
		if opt.Warn != nil {
			opt.Warn(w)
		}
	}
	key, err := redact.LoadOrCreateKey(filepath.Join(st.Home(), "redact.key"))
	if err != nil {
		return ExportResult{}, usage("redaction key: %v", err)
	}
	red, err := newRedactor(&Settings{Home: st.Home(), Workspace: run.Workspace, RedactPII: cfg.RedactPII, InternalDomains: cfg.InternalDomains})
	if err != nil {
		return ExportResult{}, err
	}
	res.Sample = cfg.Sample
	if !SampledFull(key, run.ID, cfg.Sample) {
		res.Mode = ExportMetadataOnly
	}
	evs, err := st.Events(ctx, run.ID, 0)
	if err != nil {
		return ExportResult{}, err
	}

	var n written
	if to.W != nil {
		if n, err = writeEvents(ctx, to.W, evs, red, res.Mode); err != nil {
			return ExportResult{}, fmt.Errorf("export run %s: %w", run.ID, err)
		}
	} else {
		var buf bytes.Buffer
		if n, err = writeEvents(ctx, &buf, evs, red, res.Mode); err == nil {
			err = atomicfile.Write(res.Where, buf.Bytes(), 0o600)
		}
		if err != nil {
			return ExportResult{}, fmt.Errorf("export run %s to %s: %w", run.ID, res.Where, err)
		}
	}
	res.Events, res.Withheld, res.Bytes = n.events, n.withheld, n.bytes

	by := opt.By
	if by == "" {
		by = Whoami()
	}
	detail := fmt.Sprintf("by %s to %s: %d events, %d bytes, %s ([trace] sample = %s)",
		by, res.Where, res.Events, res.Bytes, res.Mode, strconv.FormatFloat(res.Sample, 'g', -1, 64))
	if res.Withheld > 0 {
		detail += fmt.Sprintf(", %d events withheld", res.Withheld)
	}
	if st.ReadOnly() {
		// A read-only state directory (agent export reads it with
		// store.OpenRead): nothing can be recorded in it, and whoever can
		// read it can read the journal without the agent anyway.
		if opt.Warn != nil {
			opt.Warn(fmt.Sprintf("the export is not recorded in the audit log: the state directory %s is read-only", st.Home()))
		}
		return res, nil
	}
	// The export happened: record it even if the caller gave up meanwhile.
	if err := st.Audit(context.WithoutCancel(ctx), store.AuditEntry{RunID: run.ID, Action: "export", Detail: red.Redact(detail)}); err != nil {
		if to.Path != "" {
			_ = os.Remove(res.Where)
			return ExportResult{}, fmt.Errorf("export of run %s not recorded in the audit log, so %s was removed: %w", run.ID, res.Where, err)
		}
		return ExportResult{}, fmt.Errorf("export of run %s was written to %s but could not be recorded in the audit log: %w", run.ID, res.Where, err)
	}
	return res, nil
}

// ExportFile is the TUI's /export [PATH]: it exports the redacted events of
// the run with that id (or unique id prefix) to a file with Export, and
// returns the absolute path it wrote and the number of events (JSON lines)
// in it.
//
// The file is replaced atomically with internal/atomicfile, mode 0600: a
// failure leaves no file and no partial one. The path is resolved for a
// person typing it in the session:
//   - empty: <run id>.jsonl in the session's workspace;
//   - a leading ~/ is the user's home directory;
//   - relative: taken from the session's workspace, not the process's
//     working directory;
//   - an existing directory: <run id>.jsonl in it;
//   - an existing file other than <run id>.jsonl is not replaced: a
//     *UsageError (Problem ExportFileExists).
//
// The file's directory must exist; it is never created. When it does not,
// nothing is written and the error, a *UsageError wrapping an
// *ExportPathError (Problem ExportDirMissing), names the directory and the
// mkdir -p that fixes it. An unknown id is store.ErrNotFound. Warnings of
// the run workspace's configuration go to the session's Warn; the audit row
// names Whoami().
func (s *Service) ExportFile(ctx context.Context, runID, path string) (written string, events int, err error) {
	run, err := s.store.GetRun(ctx, runID)
	if err != nil {
		return "", 0, err
	}
	where, err := s.exportFilePath(run.ID, path)
	if err != nil {
		return "", 0, err
	}
	if _, err := os.Lstat(where); err == nil && path != "" && filepath.Base(where) != run.ID+".jsonl" {
		// a path the person typed never replaces a file they have (the
		// default name is this run's own export, written again)
		return "", 0, &UsageError{Err: &ExportPathError{Path: path, Abs: where, Problem: ExportFileExists}}
	}
	res, err := exportRun(ctx, s.store, run.ID, ExportTarget{Path: where}, ExportOptions{Warn: s.warn})
	if err != nil {
		return "", 0, err
	}
	return res.Where, res.Events, nil
}

// exportFilePath resolves ExportFile's path.
func (s *Service) exportFilePath(runID, path string) (string, error) {
	name := runID + ".jsonl"
	switch {
	case path == "":
		return filepath.Join(s.set.Workspace, name), nil
	case path == "~" || strings.HasPrefix(path, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", &UsageError{Err: &ExportPathError{Path: path, Problem: ExportPathInvalid,
				Err: fmt.Errorf("%w: give the path without ~", err)}}
		}
		path = filepath.Join(home, strings.TrimPrefix(path[1:], "/"))
	case !filepath.IsAbs(path):
		path = filepath.Join(s.set.Workspace, path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return filepath.Join(path, name), nil
	}
	return path, nil
}

// exportPath resolves and checks a file target.
func exportPath(to ExportTarget, runID string) (string, error) {
	where, err := filepath.Abs(to.Path)
	if err != nil {
		return "", &UsageError{Err: &ExportPathError{Path: to.Path, Problem: ExportPathInvalid, Err: err}}
	}
	if fi, err := os.Stat(where); err == nil && fi.IsDir() {
		return "", &UsageError{Err: &ExportPathError{Path: to.Path, Abs: where, Problem: ExportPathIsDir,
			Suggest: filepath.Join(to.Path, runID+".jsonl")}}
	}
	if fi, err := os.Stat(filepath.Dir(where)); err != nil || !fi.IsDir() {
		return "", &UsageError{Err: &ExportPathError{Path: to.Path, Abs: where, Problem: ExportDirMissing}}
	}
	return where, nil
}

// Whoami names the person for the audit log: $USER, else the uid.
func Whoami() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "uid " + strconv.Itoa(os.Getuid())
}

// SampledFull decides, deterministically per run and install, whether the
// run's exports carry full content: HMAC-SHA256(key, run id) read as a
// fraction in [0, 1) is below sample. A run full at one sample is full at
// every higher one.
func SampledFull(key []byte, runID string, sample float64) bool {
	if sample >= 1 {
		return true
	}
	if sample <= 0 {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("agent trace sample\x00" + runID))
	u := binary.BigEndian.Uint64(m.Sum(nil)) >> 11 // 53 bits: exact in a float64
	return float64(u)/(1<<53) < sample
}

type written struct {
	events, withheld int
	bytes            int64
}

// writeEvents writes one redacted JSON line per event.
func writeEvents(ctx context.Context, w io.Writer, evs []event.Event, red *redact.Redactor, mode ExportMode) (written, error) {
	var res written
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := range evs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		ev := evs[i]
		if mode == ExportMetadataOnly {
			metadataOnly(&ev)
		}
		redactStrings(reflect.ValueOf(ev.Data), red)
		line, err := json.Marshal(ev)
		if err != nil {
			return res, fmt.Errorf("event %d: %w", ev.Seq, err)
		}
		// The whole line once more: defense in depth for a secret that only
		// shows in the encoded form. A replacement that would break the JSON
		// withholds the event's payload instead.
		if again := red.RedactBytes(line); !sameSlice(again, line) {
			if json.Valid(again) {
				line = again
			} else {
				res.withheld++
				line, _ = json.Marshal(event.Event{Type: ev.Type, RunID: ev.RunID, Seq: ev.Seq, Time: ev.Time,
					Data: withheld{typ: ev.Type, Withheld: "this event's content was withheld: redaction could not keep it valid JSON"}})
			}
		}
		line = append(line, '\n')
		n, err := bw.Write(line)
		res.bytes += int64(n)
		if err != nil {
			return res, err
		}
		res.events++
	}
	return res, bw.Flush()
}

// withheld stands in for the payload of an event whose redacted form is not
// valid JSON.
type withheld struct {
	typ      event.Type
	Withheld string `json:"withheld"`
}

func (w withheld) EventType() event.Type { return w.typ }

func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// metadataOnly replaces the content an unsampled export leaves out.
func metadataOnly(ev *event.Event) {
	switch d := ev.Data.(type) {
	case *event.ToolResultData:
		if d.Output != "" {
			c := *d
			c.Output = fmt.Sprintf("[omitted by trace sampling: %d bytes of tool output]", len(d.Output))
			ev.Data = &c
		}
	case *event.ToolCallData:
		c := *d
		c.Arguments = shrinkArguments(d.Arguments)
		ev.Data = &c
	case *event.AssistantMessageData:
		c := *d
		c.ToolCalls = make([]event.ToolCallRef, len(d.ToolCalls))
		for i, tc := range d.ToolCalls {
			tc.Arguments = shrinkArguments(tc.Arguments)
			c.ToolCalls[i] = tc
		}
		ev.Data = &c
	}
}

// shrinkArguments replaces every string over bigArgument bytes in a JSON
// arguments text by a note with its size; arguments that are not JSON are
// replaced whole when they are that long.
func shrinkArguments(args string) string {
	note := func(n int) string { return fmt.Sprintf("[omitted by trace sampling: %d bytes]", n) }
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		if len(args) > bigArgument {
			return note(len(args))
		}
		return args
	}
	changed := false
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			if len(t) > bigArgument {
				changed = true
				return note(len(t))
			}
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e)
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		}
		return x
	}
	v = walk(v)
	if !changed {
		return args // as the model wrote it
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return note(len(args))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// redactStrings redacts, in place, every string reachable from v (a pointer
// to an event payload): fields, slice elements, nested structs.
func redactStrings(v reflect.Value, red *redact.Redactor) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			redactStrings(v.Elem(), red)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				redactStrings(v.Field(i), red)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			redactStrings(v.Index(i), red)
		}
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); s != "" {
				if r := red.Redact(s); r != s {
					v.SetString(r)
				}
			}
		}
	}
}
