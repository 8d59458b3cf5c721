package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// partKind is one step of a played turn; Server writes each part as one SSE
// chunk and Scripted turns each into the events the openai adapter emits.
type partKind int

const (
	partRole     partKind = iota + 1 // delta.role = assistant
	partText                         // delta.content fragment
	partToolHead                     // first chunk of a tool call: index, id, name
	partToolArgs                     // argument fragment of a tool call
	partFinish                       // empty delta with finish_reason
	partUsage                        // empty choices, usage
	partBad                          // a raw line that is not a chunk (bad_chunk)
)

type part struct {
	kind   partKind
	text   string // text or argument fragment; finish reason for partFinish
	index  int    // tool call index
	id     string
	name   string
	usage  Usage
	noText bool // partRole of a turn without text: content is null, not ""
	object bool // partToolHead carrying the whole arguments (text) as a JSON value
}

// plan lays a turn out as the chunks OpenAI would send.
func plan(t *Turn, includeUsage bool) []part {
	n := t.chunkSize()
	parts := []part{{kind: partRole, noText: t.Text == ""}}
	for _, f := range split(t.Text, n) {
		parts = append(parts, part{kind: partText, text: f})
	}
	if t.BadChunk != "" {
		return append(parts, part{kind: partBad, text: t.BadChunk})
	}
	for i, tc := range t.ToolCalls {
		if t.ArgsObject && json.Valid([]byte(tc.Arguments)) {
			// The whole call in one chunk, arguments as a JSON value.
			parts = append(parts, part{kind: partToolHead, index: i, id: tc.ID, name: tc.Name, text: tc.Arguments, object: true})
			continue
		}
		parts = append(parts, part{kind: partToolHead, index: i, id: tc.ID, name: tc.Name})
		for _, f := range split(tc.Arguments, n) {
			parts = append(parts, part{kind: partToolArgs, index: i, text: f})
		}
	}
	parts = append(parts, part{kind: partFinish, text: t.finishReason()})
	if includeUsage {
		parts = append(parts, part{kind: partUsage, usage: t.usage()})
	}
	return parts
}

// split cuts s into fragments of n runes.
func split(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

// convMsg is the view of a request message both players check.
type convMsg struct {
	Role        string
	Content     string
	ToolCallIDs []string // assistant
	ToolArgs    []string // assistant: the arguments of its tool calls
	ToolCallID  string   // tool
}

// protocolError is a request OpenAI would answer with HTTP 400.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

// validToolName: 1-64 bytes of [a-zA-Z0-9_-] (a function: the equivalent
// regexp's bounded repetition cost ~0.4 ms to compile at every start).
func validToolName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validateConversation applies the checks OpenAI makes on the message list,
// with its wording.
func validateConversation(msgs []convMsg, toolNames []string) error {
	if len(msgs) == 0 {
		return &protocolError{"[] is too short - 'messages'"}
	}
	for i, name := range toolNames {
		if !validToolName(name) {
			return &protocolError{fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i)}
		}
	}
	var open []string // tool call ids still waiting for their tool message
	answerable := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case "system", "developer", "user", "assistant":
			if len(open) > 0 {
				return &protocolError{fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))}
			}
			answerable = map[string]bool{}
			if m.Role == "assistant" {
				open = append(open, m.ToolCallIDs...)
				for _, id := range m.ToolCallIDs {
					answerable[id] = true
				}
			}
		case "tool":
			if !answerable[m.ToolCallID] {
				return &protocolError{fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[%d], tool_call_id %q)", i, m.ToolCallID)}
			}
			delete(answerable, m.ToolCallID)
			open = remove(open, m.ToolCallID)
		default:
			return &protocolError{fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'. (messages[%d].role)", m.Role, i)}
		}
	}
	if len(open) > 0 {
		return &protocolError{fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))}
	}
	return nil
}

func remove(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// checkExpect returns the failed checks of e against a request.
func checkExpect(e *Expect, msgs []convMsg, raw []byte) []string {
	if e == nil {
		return nil
	}
	var fails []string
	if want := e.ToolResultContains; want != "" {
		var results []string
		for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "assistant"; i-- {
			if msgs[i].Role == "tool" {
				results = append(results, msgs[i].Content)
			}
		}
		if !anyContains(results, want) {
			fails = append(fails, fmt.Sprintf("expected a tool result containing %q; got %s", want, quoteAll(results)))
		}
	}
	if want := e.MessageContains; want != "" {
		found := false
		for _, m := range msgs {
			found = found || strings.Contains(m.Content, want)
		}
		if !found {
			fails = append(fails, fmt.Sprintf("expected a message containing %q", want))
		}
	}
	for _, bad := range e.RequestNotContains {
		if bad == "" {
			continue
		}
		where := ""
		if strings.Contains(string(raw), bad) {
			where = "the raw request body"
		}
		for i, m := range msgs {
			if strings.Contains(m.Content, bad) || anyContains(m.ToolArgs, bad) {
				where = fmt.Sprintf("messages[%d] (%s)", i, m.Role)
				break
			}
		}
		if where != "" {
			fails = append(fails, fmt.Sprintf("request must not contain %q but %s does", bad, where))
		}
	}
	return fails
}

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "no tool results"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		if len(s) > 200 {
			s = s[:200] + "..."
		}
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// player is the state shared by both players: the turn cursor and the
// recorded mismatches. Safe for concurrent use.
type player struct {
	mu         sync.Mutex
	script     *Script
	next       int // index of the next turn
	requests   int
	mismatches []string
	faulted    map[childTurnKey]bool // children's turns whose fault was played
	played     map[int]int           // requests answered per child (index)
}

func newPlayer(s *Script) *player {
	if s == nil {
		s = &Script{}
	}
	return &player{script: s}
}

// begin counts a request and returns its number, from 1.
func (p *player) begin() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	return p.requests
}

// check validates the conversation of request n; a violation is recorded and
// returned (the request is then rejected without consuming a turn).
func (p *player) check(n int, msgs []convMsg, toolNames []string) error {
	if p.script.Lenient {
		return nil
	}
	if err := validateConversation(msgs, toolNames); err != nil {
		p.mismatch("request %d: rejected like OpenAI would (HTTP 400): %v", n, err)
		return err
	}
	return nil
}

// seek moves the cursor past the first k turns that answer (fault turns do
// not produce an assistant message, so they are skipped without counting).
func (p *player) seek(k int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := 0
	for ; i < len(p.script.Turns) && k > 0; i++ {
		if p.script.Turns[i].HTTPStatus == 0 {
			k--
		}
	}
	p.next = i
}

// seekAfter moves past the turn that gave an answer: the one whose calls
// carry callID, else (no call) the last one with that text and no calls. It
// reports whether it found one.
func (p *player) seekAfter(callID, text string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	turns := p.script.Turns
	if callID != "" {
		for i := range turns {
			for _, tc := range turns[i].ToolCalls {
				if tc.ID == callID {
					p.next = i + 1
					return true
				}
			}
		}
		return false
	}
	for i := len(turns) - 1; i >= 0; i-- {
		if len(turns[i].ToolCalls) == 0 && turns[i].HTTPStatus == 0 && turns[i].Text != "" && turns[i].Text == text {
			p.next = i + 1
			return true
		}
	}
	return false
}

// take consumes the next turn for request n and records failed expectations.
// turnNo counts from 1 and is 0 when the script is exhausted.
func (p *player) take(n int, msgs []convMsg, raw []byte) (turnNo int, t Turn) {
	p.mu.Lock()
	if p.next >= len(p.script.Turns) {
		p.mu.Unlock()
		p.mismatch("request %d: script exhausted after %d turns", n, len(p.script.Turns))
		return 0, exhaustedTurn()
	}
	t = p.script.Turns[p.next]
	p.next++
	turnNo = p.next
	p.mu.Unlock()
	for _, f := range checkExpect(t.Expect, msgs, raw) {
		p.mismatch("request %d (turn %d): %s", n, turnNo, f)
	}
	return turnNo, t
}

func (p *player) mismatch(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mismatches = append(p.mismatches, fmt.Sprintf(format, args...))
}

func (p *player) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.mismatches...)
}

func (p *player) err() error {
	ms := p.list()
	if len(ms) == 0 {
		return nil
	}
	return fmt.Errorf("replay: %d mismatch(es):\n  %s", len(ms), strings.Join(ms, "\n  "))
}

func (p *player) remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.script.Turns) - p.next
}

// errDropped is what Scripted returns for a drop_after_chunks turn.
var errDropped = errors.New("replay: connection dropped mid-stream (drop_after_chunks)")
