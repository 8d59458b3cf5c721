// Package acp owns `agent acp`: the Agent Client Protocol over stdio, the
// third frontend beside the TUI and the headless CLI. An editor (Zed,
// Neovim's CodeCompanion, JetBrains) starts the process and speaks
// JSON-RPC 2.0 to it, one message a line; stdout carries protocol messages
// only, logs go to stderr.
//
// It owns the mapping between ACP and the application layer: an ACP
// session is one run of internal/app in the session's workspace; a prompt
// drives it (Run.Drive) and its updates (Service.Subscribe) become
// session/update notifications; a call that needs a person becomes
// session/request_permission and the answer goes back as the same
// protocol.Decision a TUI gives (Run.Decide); session/cancel is the TUI's
// Esc (Run.Interrupt); session/load replays the journal (app.Home) and
// continues as `agent resume` would. The children of a task call
// (protocol.UpdateChild) show in that call's tool_call, whose content
// tool_call_update notifications replace as they go (children.go).
// Extension methods (`_agent/...`) list
// checkpoints, roll back and show the context report.
//
// It may import app, protocol, event, config and the ACP SDK; never the
// store, the checkpoints or the loop (internal/app's guard test): if it
// needs a query of its own, the seam is wrong.
package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/app"
)

// Options configure Serve.
type Options struct {
	// In and Out are the editor's end of the pipe (stdin, stdout).
	In  io.Reader
	Out io.Writer
	// Log receives diagnostics (stderr); nil drops them.
	Log io.Writer
	// Flags are the command line's settings; each session's workspace
	// replaces Dir.
	Flags app.Flags
	// Version is the agent's version, told to the editor.
	Version string
}

// Serve speaks ACP on opt.In/opt.Out until the editor closes its end (or
// ctx ends). A prompt still running then is interrupted as Esc would
// (journaled, resumable) and every session is closed before Serve returns.
func Serve(ctx context.Context, opt Options) error {
	if opt.In == nil || opt.Out == nil {
		return errors.New("acp: no input or output")
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	out := &lineWriter{w: opt.Out}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := newServer(ctx, opt, slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn})))
	in := filterInput(opt.In, out, srv.log)
	conn := sdk.NewAgentSideConnection(srv, out, in)
	conn.SetLogger(srv.log)
	srv.conn = conn
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	cancel() // every prompt still driven is interrupted
	srv.shutdown()
	return nil
}

// lineWriter serializes whole lines to the editor: the SDK writes one
// message a Write, and so does the input filter's error answer.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// maxLine bounds one JSON-RPC message (the SDK's own limit is 10 MiB).
const maxLine = 8 << 20

// filterInput passes the editor's messages on to the SDK and answers what
// is not JSON-RPC itself: the SDK would only log a line that does not
// parse, and the editor would wait for an answer forever. A line that is
// not JSON is a parse error (-32700), JSON that is not a request, a
// notification or a response an invalid request (-32600), both with id
// null as JSON-RPC 2.0 says.
func filterInput(in io.Reader, out io.Writer, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r)
			if len(bytes.TrimSpace(line)) > 0 {
				if msg, bad := checkMessage(line); bad != nil {
					log.Warn("refused a message", "error", bad.Message)
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": bad})
					_, _ = out.Write(append(b, '\n'))
				} else if _, werr := pw.Write(append(msg, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line; a line longer than maxLine is cut there (its
// rest is read and dropped), so that it fails as a parse error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if len(line) < maxLine {
			line = append(line, chunk...)
		}
		if err != nil || !isPrefix {
			if err == io.EOF && len(line) > 0 {
				return line, nil // the last line without its newline; EOF comes next
			}
			return line, err
		}
	}
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func checkMessage(line []byte) ([]byte, *rpcError) {
	if len(line) >= maxLine {
		return nil, &rpcError{-32700, fmt.Sprintf("parse error: a message is longer than %d bytes", maxLine)}
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if !json.Valid(line) {
		return nil, &rpcError{-32700, "parse error: the line is not JSON (ACP is JSON-RPC 2.0, one message a line)"}
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, &rpcError{-32600, "invalid request: a JSON-RPC message is an object (batches are not supported)"}
	}
	if m.JSONRPC != "2.0" {
		return nil, &rpcError{-32600, `invalid request: "jsonrpc" must be "2.0"`}
	}
	switch {
	case m.Method != nil && *m.Method != "":
	case len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0):
	default:
		return nil, &rpcError{-32600, `invalid request: a message has a "method" (a request or notification) or an "id" with a "result" or "error" (a response)`}
	}
	return line, nil
}
