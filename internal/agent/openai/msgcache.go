package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	goopenai "github.com/sashabaranov/go-openai"

	"agent/internal/agent"
)

// A request carries the whole conversation and every tool's schema, and
// go-openai encodes them again for every request: each message through its
// MarshalJSON, each tool through a map, whose output encoding/json then
// validates and compacts once more. At 800 steps the messages were a sixth
// of the agent's CPU, the tools a twentieth at 200. Instead, the provider
// encodes each message once (messageCache) and the tools once (toolCache),
// and hands go-openai a request whose messages are nil and whose tools are
// one placeholder; the recording doer puts the encoded messages and tools
// in place of the placeholders of the body go-openai made. The bytes are
// the ones go-openai would have sent: each message is json.Marshal of the
// same ChatCompletionMessage, the tools json.Marshal of the same []Tool.

// messagesPlaceholder is how go-openai encodes a request whose Messages is
// nil; model comes first, so the first occurrence is the key (a quote
// inside the model's string is escaped, so `,"messages"` cannot occur in it).
var messagesPlaceholder = []byte(`,"messages":null`)

// toolsPlaceholderType is the type of the one tool of a request whose tools
// the doer puts in; its encoding comes after the messages placeholder, and
// nothing between the two is a string the caller chose.
const toolsPlaceholderType goopenai.ToolType = "agent:tools-placeholder"

var toolsPlaceholder = func() []byte {
	b, err := json.Marshal([]goopenai.Tool{{Type: toolsPlaceholderType}})
	if err != nil {
		panic(err)
	}
	return append([]byte(`"tools":`), b...)
}()

// wireBody is what the doer puts into the body go-openai made: the
// messages, each encoded, and the tools array (nil: none).
type wireBody struct {
	msgs  [][]byte
	size  int // bytes of the messages array
	tools []byte
}

// msgKey is what a message says on the wire (what wireMessage reads).
type msgKey struct{ role, content, toolCallID, calls string }

func keyOf(m agent.Message) msgKey {
	k := msgKey{role: string(m.Role), content: m.Content, toolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		var b strings.Builder
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.ID)
			b.WriteByte(0)
			b.WriteString(tc.Name)
			b.WriteByte(0)
			b.WriteString(tc.Arguments)
			b.WriteByte(0)
		}
		k.calls = b.String()
	}
	return k
}

// sameWire reports whether a and b say the same on the wire. The strings
// of a message the context builder passes again are the same strings, so
// this is mostly pointer and length compares.
func sameWire(a, b *agent.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || x.Arguments != y.Arguments {
			return false
		}
	}
	return true
}

// skipped reports whether m is left out of the request: an empty answer
// (the API rejects an assistant message without content or tool calls).
func skipped(m *agent.Message) bool {
	return m.Role == agent.RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0
}

// cachedMsg is a message of the last request and its encoding (nil: left out).
type cachedMsg struct {
	m agent.Message
	b []byte
}

// messageCache keeps the encoding of the messages across requests. A
// request is mostly the previous one with a few messages moved or added, so
// each message is first looked for near where the previous request had it
// (compared, not hashed); the others by what they say (byKey), and only
// the new ones are encoded.
type messageCache struct {
	mu    sync.Mutex
	prev  []cachedMsg
	byKey map[msgKey][]byte
}

// nearWindow is how far from its expected place a message is looked for in
// the previous request.
const nearWindow = 8

// near returns the index in c.prev of a message that says what m says,
// looking from j outwards; -1 for none.
func (c *messageCache) near(m *agent.Message, j int) int {
	for d := 0; d <= nearWindow; d++ {
		if k := j + d; k < len(c.prev) && sameWire(&c.prev[k].m, m) {
			return k
		}
		if k := j - d - 1; d < nearWindow && k >= 0 && k < len(c.prev) && sameWire(&c.prev[k].m, m) {
			return k
		}
	}
	return -1
}

// encode returns each message's encoding, in order, leaving out those
// skipped. The errors are the ones buildRequest gives.
func (c *messageCache) encode(msgs []agent.Message) (wireBody, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[msgKey][]byte{}
	}
	next := make([]cachedMsg, len(msgs))
	out := wireBody{msgs: make([][]byte, 0, len(msgs))}
	j := 0
	for i := range msgs {
		m := &msgs[i]
		var b []byte
		if k := c.near(m, j); k >= 0 {
			b, j = c.prev[k].b, k+1
		} else if !skipped(m) {
			key := keyOf(*m)
			var ok bool
			if b, ok = c.byKey[key]; !ok {
				wm, err := wireMessage(*m)
				if err != nil {
					return wireBody{}, &ModelError{Err: err, Msg: fmt.Sprintf("invalid conversation: message %d: %v", i, err)}
				}
				if b, err = json.Marshal(wm); err != nil {
					return wireBody{}, &ModelError{Err: err, Msg: fmt.Sprintf("invalid conversation: message %d: %v", i, err)}
				}
				c.byKey[key] = b
			}
		}
		next[i] = cachedMsg{m: *m, b: b}
		if b != nil {
			out.msgs = append(out.msgs, b)
			out.size += len(b)
		}
	}
	out.size += 2 + max(len(out.msgs)-1, 0)
	c.prev = next
	if len(c.byKey) > 2*len(next)+256 { // keep what this request used
		c.byKey = make(map[msgKey][]byte, len(next))
		for _, e := range next {
			if e.b != nil {
				c.byKey[keyOf(e.m)] = e.b
			}
		}
	}
	return out, nil
}

// toolCache keeps the encoding of the tools of the last request.
type toolCache struct {
	mu    sync.Mutex
	specs []agent.ToolSpec // a copy of the last request's
	enc   []byte
}

// encode returns the JSON array of the wire tools of specs (nil: none).
func (c *toolCache) encode(specs []agent.ToolSpec) ([]byte, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sameSpecs(c.specs, specs) {
		return c.enc, nil
	}
	tools, err := wireTools(specs)
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(tools)
	if err != nil {
		return nil, &ModelError{Err: err, Msg: fmt.Sprintf("invalid tools: %v", err)}
	}
	c.specs = make([]agent.ToolSpec, len(specs))
	for i, s := range specs {
		c.specs[i] = agent.ToolSpec{Name: s.Name, Description: s.Description, Parameters: bytes.Clone(s.Parameters)}
	}
	c.enc = enc
	return enc, nil
}

func sameSpecs(a, b []agent.ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}

// splice puts w into the body of req in place of the placeholders.
func splice(req *http.Request, w *wireBody) (*http.Request, error) {
	if req.Body == nil {
		return nil, errors.New("model request: no body to put the messages in")
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("model request: %w", err)
	}
	i := bytes.Index(body, messagesPlaceholder)
	if i < 0 {
		return nil, errors.New("model request: the body go-openai made has no messages placeholder (a go-openai upgrade changed its encoding?)")
	}
	rest := body[i+len(messagesPlaceholder):]
	var mid, tail []byte
	if w.tools != nil {
		t := bytes.Index(rest, toolsPlaceholder)
		if t < 0 {
			return nil, errors.New("model request: the body go-openai made has no tools placeholder (a go-openai upgrade changed its encoding?)")
		}
		mid, tail = rest[:t], rest[t+len(toolsPlaceholder):]
	} else {
		mid = rest
	}
	nb := make([]byte, 0, len(body)+w.size+len(w.tools)+16)
	nb = append(nb, body[:i]...)
	nb = append(nb, `,"messages":[`...)
	for k, m := range w.msgs {
		if k > 0 {
			nb = append(nb, ',')
		}
		nb = append(nb, m...)
	}
	nb = append(nb, ']')
	nb = append(nb, mid...)
	if w.tools != nil {
		nb = append(nb, `"tools":`...)
		nb = append(nb, w.tools...)
		nb = append(nb, tail...)
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(nb))
	out.ContentLength = int64(len(nb))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nb)), nil }
	return out, nil
}
