// Package replay owns the script format of canned model turns and the two
// ways of playing a script back: Server, an http.Handler speaking the OpenAI
// chat-completions wire protocol (SSE streaming exactly like OpenAI, or plain
// JSON), and Scripted, an agent.Provider that yields the same StreamEvents the
// openai adapter would produce against that Server, without HTTP.
//
// It is for tests, evals and manual runs. It must not touch the agent's state,
// the workspace or the network beyond the listener it is given; it knows
// nothing of the loop, tools or configuration.
//
// # Script format
//
// A script is a JSON object with a list of turns; every model request
// consumes the next turn, in order:
//
//	{
//	  "turns": [
//	    {"text": "Let me look.",
//	     "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": "{\"path\":\"go.mod\"}"}],
//	     "usage": {"input": 120, "output": 15}},
//	    {"http_status": 429, "retry_after": "0"},
//	    {"text": "Done.", "expect": {"tool_result_contains": "module "}}
//	  ]
//	}
//
// Turn fields (all optional):
//
//   - text: assistant text, streamed in chunks.
//   - tool_calls: [{id, name, arguments}]; arguments is a raw string, sent
//     verbatim (it may be broken JSON); id defaults to "call_T_I" (turn and
//     call number, from 1).
//   - usage: {input, output} token counts reported for the turn (default 0, 0).
//   - finish_reason: defaults to "tool_calls" when there are tool calls, else "stop".
//   - http_status (400-599), retry_after (seconds or an HTTP date), error:
//     answer the request with this HTTP error instead; the turn is consumed,
//     so the next request (e.g. the client's retry) gets the next turn.
//   - chunk_size: runes per text or argument fragment (default 7).
//   - stall_after_chunks: N: send N SSE chunks, flush, then hang until the
//     client goes away (crash and cancellation tests).
//   - drop_after_chunks: N: send N chunks, then cut the connection.
//   - delay_ms: N: the HTTP server waits N milliseconds before it answers (a
//     slow model, for the TUI's signs of life); the in-process player ignores it.
//   - args_object: true: send each tool call whole in one chunk with its
//     arguments as a JSON value, not a string, as llama.cpp and Ollama do
//     (arguments that are not valid JSON are still sent as a string).
//   - bad_chunk: a raw line sent as the data of the first chunk after the
//     role chunk, verbatim (a server speaking another format); the stream
//     then ends.
//   - expect: checks on the request that receives this turn; a failed check
//     does not change the answer, it is recorded (see Server.Err):
//     tool_result_contains (a tool message after the last assistant message
//     contains the text), message_contains (some message contains it),
//     request_not_contains (a list; no message, tool argument or raw body
//     contains any of them: e.g. secrets that must have been redacted).
//
// A script may set "lenient": true to skip the conversation checks OpenAI
// makes (a tool message must answer a preceding tool call; every tool call
// must be answered before the next message); by default a violation is
// answered with HTTP 400 exactly like OpenAI, and recorded.
//
// A script may also carry "children": the turns of the subagents its run
// starts, each told apart by its task prompt (see children.go).
//
// When the turns run out, a request is answered with the text turn
// "script exhausted" (finish_reason "stop") and the overrun is recorded as a
// mismatch, so a run ends cleanly and the test sees why.
package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// DefaultChunkSize is the fragment size, in runes, of text and arguments.
const DefaultChunkSize = 7

// ExhaustedText is the text of the turn played when the script has run out.
const ExhaustedText = "script exhausted"

// Script is a parsed replay script.
type Script struct {
	Turns []Turn `json:"turns"`
	// Lenient disables the OpenAI conversation checks.
	Lenient bool `json:"lenient,omitempty"`
	// Children are the scripts of subagents (children.go).
	Children []Child `json:"children,omitempty"`
}

// Turn is one scripted model answer (or one scripted failure).
type Turn struct {
	Text             string     `json:"text,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	Usage            *Usage     `json:"usage,omitempty"`
	FinishReason     string     `json:"finish_reason,omitempty"`
	HTTPStatus       int        `json:"http_status,omitempty"`
	RetryAfter       string     `json:"retry_after,omitempty"`
	Error            string     `json:"error,omitempty"`
	ChunkSize        int        `json:"chunk_size,omitempty"`
	StallAfterChunks *int       `json:"stall_after_chunks,omitempty"`
	DropAfterChunks  *int       `json:"drop_after_chunks,omitempty"`
	DelayMS          int        `json:"delay_ms,omitempty"`
	ArgsObject       bool       `json:"args_object,omitempty"`
	BadChunk         string     `json:"bad_chunk,omitempty"`
	Expect           *Expect    `json:"expect,omitempty"`
}

// ToolCall is a scripted tool call. Arguments is sent verbatim.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the token count reported for a turn.
type Usage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// Expect are checks on the request a turn answers.
type Expect struct {
	ToolResultContains string   `json:"tool_result_contains,omitempty"`
	MessageContains    string   `json:"message_contains,omitempty"`
	RequestNotContains []string `json:"request_not_contains,omitempty"`
}

// Load reads and parses a script file.
func Load(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay script: %w", err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse parses and validates a script. Unknown fields are errors, so a typo
// does not silently change a test.
func Parse(b []byte) (*Script, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("replay script: %w", describeJSONError(b, err))
	}
	if dec.More() {
		return nil, errors.New("replay script: trailing data after the JSON object")
	}
	if len(s.Turns) == 0 {
		return nil, errors.New(`replay script: no turns (want {"turns": [...]})`)
	}
	for i := range s.Turns {
		if err := s.Turns[i].validate(i); err != nil {
			return nil, fmt.Errorf("replay script: turn %d: %w", i+1, err)
		}
	}
	if err := validateChildren(s.Children); err != nil {
		return nil, fmt.Errorf("replay script: %w", err)
	}
	return &s, nil
}

func (t *Turn) validate(i int) error {
	if t.HTTPStatus != 0 {
		if t.HTTPStatus < 400 || t.HTTPStatus > 599 {
			return fmt.Errorf("http_status %d: want 400-599", t.HTTPStatus)
		}
		if t.Text != "" || len(t.ToolCalls) > 0 {
			return errors.New("http_status turns carry no text or tool_calls (the error replaces the answer)")
		}
	} else if t.RetryAfter != "" || t.Error != "" {
		return errors.New("retry_after and error need http_status")
	}
	if t.RetryAfter != "" {
		if _, err := strconv.Atoi(t.RetryAfter); err != nil {
			if _, err := http.ParseTime(t.RetryAfter); err != nil {
				return fmt.Errorf("retry_after %q: want whole seconds or an HTTP date", t.RetryAfter)
			}
		}
	}
	if t.ChunkSize < 0 {
		return fmt.Errorf("chunk_size %d: want > 0", t.ChunkSize)
	}
	if t.StallAfterChunks != nil && t.DropAfterChunks != nil {
		return errors.New("stall_after_chunks and drop_after_chunks exclude each other")
	}
	if (t.StallAfterChunks != nil && *t.StallAfterChunks < 0) || (t.DropAfterChunks != nil && *t.DropAfterChunks < 0) {
		return errors.New("stall_after_chunks / drop_after_chunks must be >= 0")
	}
	if t.Usage != nil && (t.Usage.Input < 0 || t.Usage.Output < 0) {
		return errors.New("usage counts must be >= 0")
	}
	seen := map[string]bool{}
	for j := range t.ToolCalls {
		tc := &t.ToolCalls[j]
		if strings.TrimSpace(tc.Name) == "" {
			return fmt.Errorf("tool_calls[%d]: name is required", j)
		}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", i+1, j+1)
		}
		if seen[tc.ID] {
			return fmt.Errorf("tool_calls[%d]: duplicate id %q", j, tc.ID)
		}
		seen[tc.ID] = true
	}
	return nil
}

// finishReason is the finish reason the turn is played with.
func (t *Turn) finishReason() string {
	switch {
	case t.FinishReason != "":
		return t.FinishReason
	case len(t.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (t *Turn) chunkSize() int {
	if t.ChunkSize > 0 {
		return t.ChunkSize
	}
	return DefaultChunkSize
}

func (t *Turn) usage() Usage {
	if t.Usage != nil {
		return *t.Usage
	}
	return Usage{}
}

// retryable reports whether an http_status turn is one the openai adapter
// retries (429 and 5xx).
func (t *Turn) retryable() bool {
	return t.HTTPStatus == http.StatusTooManyRequests || t.HTTPStatus >= 500
}

func (t *Turn) errorMessage() string {
	if t.Error != "" {
		return t.Error
	}
	if txt := http.StatusText(t.HTTPStatus); txt != "" {
		return "replay: " + txt
	}
	return fmt.Sprintf("replay: HTTP %d", t.HTTPStatus)
}

// exhaustedTurn is played when the script has run out.
func exhaustedTurn() Turn { return Turn{Text: ExhaustedText} }

// describeJSONError adds a line and column to JSON syntax and type errors.
func describeJSONError(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF):
		return errors.New("empty file")
	}
	if off < 0 {
		return err
	}
	line, col := 1, 1
	for _, c := range b[:min(int(off), len(b))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}
