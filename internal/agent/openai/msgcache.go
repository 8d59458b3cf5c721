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
)

// A request carries the whole conversation, and go-openai encodes it again
// for every request: each message through its MarshalJSON, whose output
// encoding/json then validates and compacts once more. At 800 steps that
// was a sixth of the agent's CPU. Instead, the provider encodes each
// message once (messageCache, keyed by what the message says) and hands
// go-openai a request without messages; the recording doer puts the
// encoded array in the placeholder, `"messages":null`, of the body
// go-openai made. The bytes are the ones go-openai would have sent: each
// element is json.Marshal of the same ChatCompletionMessage.

// messagesPlaceholder is how go-openai encodes a request whose Messages is
// nil; model comes first, so the first occurrence is the key (a quote
// inside the model's string is escaped, so `,"messages"` cannot occur in it).
var messagesPlaceholder = []byte(`,"messages":null`)

// msgKey is what a wire message says.
type msgKey struct{ role, content, toolCallID, calls string }

func keyOf(m goopenai.ChatCompletionMessage) msgKey {
	k := msgKey{role: m.Role, content: m.Content, toolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		var b strings.Builder
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.ID)
			b.WriteByte(0)
			b.WriteString(string(tc.Type))
			b.WriteByte(0)
			b.WriteString(tc.Function.Name)
			b.WriteByte(0)
			b.WriteString(tc.Function.Arguments)
			b.WriteByte(0)
		}
		k.calls = b.String()
	}
	return k
}

// messageCache keeps the encoding of the messages of the last request: a
// request is encoded from the previous one's entries and its new messages,
// and keeps only what it used.
type messageCache struct {
	mu  sync.Mutex
	enc map[msgKey][]byte
}

// encode returns the JSON array of msgs.
func (c *messageCache) encode(msgs []goopenai.ChatCompletionMessage) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := make(map[msgKey][]byte, len(msgs))
	var out bytes.Buffer
	out.WriteByte('[')
	for i, m := range msgs {
		k := keyOf(m)
		b, ok := next[k]
		if !ok {
			b, ok = c.enc[k]
		}
		if !ok {
			var err error
			if b, err = json.Marshal(m); err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
		}
		next[k] = b
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(b)
	}
	out.WriteByte(']')
	c.enc = next
	return out.Bytes(), nil
}

// spliceMessages puts msgs into the body of req in place of the
// placeholder.
func spliceMessages(req *http.Request, msgs []byte) (*http.Request, error) {
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
	nb := make([]byte, 0, len(body)+len(msgs))
	nb = append(nb, body[:i]...)
	nb = append(nb, `,"messages":`...)
	nb = append(nb, msgs...)
	nb = append(nb, body[i+len(messagesPlaceholder):]...)
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(nb))
	out.ContentLength = int64(len(nb))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nb)), nil }
	return out, nil
}
