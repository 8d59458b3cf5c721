package cmd

import (
	"agent/internal/app"
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/atomicfile"
	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/redact"
	"agent/internal/store"
)

// bigArgument is the size over which a string in a tool call's arguments
// (a file's content, an edit's text) is left out of a metadata-only export.
const bigArgument = 256

func newExportCmd() *cobra.Command {
	var outFile string
	c := &cobra.Command{
		Use:   "export RUN_ID [-o FILE]",
		Short: "Write a run's redacted events as JSONL; recorded in the audit log",
		Long: `Write a run's events as JSON lines, the same objects as agent run --json prints.
Everything in the journal has passed secret redaction already; export redacts
every line again, with the key, the environment and the .env files of now, so a
secret learned since the run was journaled is caught too.

With -o the file is written atomically (a temporary file renamed into place) with
mode 0600; without it the lines go to stdout. Every export is a row in the audit
log: who, where to, how many events and bytes, full or metadata only.

Sampling: [trace] sample (0 to 1, default 1) in the configuration of the run's
workspace is the share of runs whose exports carry full content. Which runs those
are is decided per run by a keyed hash of its id, so exporting one run twice gives
the same answer. The other runs export metadata only: every event with its types,
ids, tools, statuses, approvals, checkpoints, token counts, errors and the model's
text, but a tool result's output becomes a note with its size, and strings over
256 bytes in tool-call arguments (file contents, edit texts) become such notes.`,
		Example: `  agent export 20261129T203216-3f9a1c > run.jsonl
  agent export 20261129T2032 -o /tmp/run.jsonl
  agent export 20261129T2032 | jq -c 'select(.type=="tool_call") | {name, arguments}'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("agent export needs one run id, e.g. agent export 20261129T203216-3f9a1c -o run.jsonl (list them with agent runs)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd, args[0], outFile)
		},
	}
	c.Flags().StringVarP(&outFile, "output", "o", "", "write to FILE (mode 0600, atomically) instead of stdout")
	return c
}

func runExport(cmd *cobra.Command, id, outFile string) error {
	ctx := cmd.Context()
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := st.GetRun(ctx, id)
	if err != nil {
		return notFound(err)
	}
	cfg, warnings, err := config.Load(run.Workspace, config.Sources{})
	if err != nil {
		return usageErr("%v", err)
	}
	for _, w := range warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "agent: warning:", w)
	}
	key, err := redact.LoadOrCreateKey(filepath.Join(st.Home(), "redact.key"))
	if err != nil {
		return usageErr("redaction key: %v", err)
	}
	red, err := app.NewRedactor(&app.Settings{Home: st.Home(), Workspace: run.Workspace, RedactPII: cfg.RedactPII, InternalDomains: cfg.InternalDomains})
	if err != nil {
		return err
	}
	full := sampledFull(key, run.ID, cfg.Sample)
	evs, err := st.Events(ctx, run.ID, 0)
	if err != nil {
		return withCode(ExitFailed, err)
	}

	where := "stdout"
	var res exportResult
	if outFile == "" || outFile == "-" {
		res, err = writeEvents(cmd.OutOrStdout(), evs, red, full)
		if err != nil {
			return withCode(ExitFailed, fmt.Errorf("export run %s: %w", run.ID, err))
		}
	} else {
		if where, err = filepath.Abs(outFile); err != nil {
			return usageErr("-o %s: %v", outFile, err)
		}
		if fi, err := os.Stat(filepath.Dir(where)); err != nil || !fi.IsDir() {
			return usageErr("-o %s: the directory %s does not exist (create it or fix the path)", outFile, filepath.Dir(where))
		}
		if fi, err := os.Stat(where); err == nil && fi.IsDir() {
			return usageErr("-o %s is a directory: give a file name, e.g. -o %s", outFile, filepath.Join(outFile, run.ID+".jsonl"))
		}
		res, err = writeFileAtomic(where, func(w io.Writer) (exportResult, error) { return writeEvents(w, evs, red, full) })
		if err != nil {
			return withCode(ExitFailed, fmt.Errorf("export run %s to %s: %w", run.ID, where, err))
		}
	}
	mode := "full"
	if !full {
		mode = "metadata only"
	}
	detail := fmt.Sprintf("by %s to %s: %d events, %d bytes, %s ([trace] sample = %s)",
		whoami(), where, res.events, res.bytes, mode, strconv.FormatFloat(cfg.Sample, 'g', -1, 64))
	if res.withheld > 0 {
		detail += fmt.Sprintf(", %d events withheld", res.withheld)
	}
	if err := st.Audit(ctx, store.AuditEntry{RunID: run.ID, Action: "export", Detail: red.Redact(detail)}); err != nil {
		if where != "stdout" {
			_ = os.Remove(where)
			return withCode(ExitFailed, fmt.Errorf("export of run %s not recorded in the audit log, so %s was removed: %w", run.ID, where, err))
		}
		return withCode(ExitFailed, fmt.Errorf("export of run %s was written to stdout but could not be recorded in the audit log: %w", run.ID, err))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "exported run %s: %d events, %d bytes, %s, to %s\n", run.ID, res.events, res.bytes, mode, where)
	return nil
}

// sampledFull decides, deterministically per run and install, whether the
// run's exports carry full content: HMAC-SHA256(key, run id) read as a
// fraction in [0, 1) is below sample.
func sampledFull(key []byte, runID string, sample float64) bool {
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

type exportResult struct {
	events, withheld int
	bytes            int64
}

// writeEvents writes one redacted JSON line per event.
func writeEvents(w io.Writer, evs []event.Event, red *redact.Redactor, full bool) (exportResult, error) {
	var res exportResult
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := range evs {
		ev := evs[i]
		if !full {
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

// writeFileAtomic renders through fill and replaces name with the result
// (mode 0600) with atomicfile: fsynced, renamed into place, directory
// fsynced. A failed render writes nothing.
func writeFileAtomic(name string, fill func(io.Writer) (exportResult, error)) (exportResult, error) {
	var buf bytes.Buffer
	res, err := fill(&buf)
	if err != nil {
		return res, err
	}
	return res, atomicfile.Write(name, buf.Bytes(), 0o600)
}

// whoami names the person for the audit log: $USER, else the uid.
func whoami() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
