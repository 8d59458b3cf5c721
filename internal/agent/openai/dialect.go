package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// sseBody sits between the HTTP response and go-openai's stream reader. It
// passes the server-sent events through line by line, normalising one
// dialect of local servers (llama.cpp, Ollama): tool-call arguments sent as
// a JSON object (or any JSON value) instead of a string become the string of
// that JSON, as the chat-completions protocol has it. It also keeps the last
// data line, so that a chunk the adapter cannot parse is reported with what
// was received.
type sseBody struct {
	src  io.ReadCloser
	r    *bufio.Reader
	out  []byte // the transformed line not yet read
	mu   sync.Mutex
	last []byte // the last "data:" line received, as received
}

func newSSEBody(rc io.ReadCloser) *sseBody {
	return &sseBody{src: rc, r: bufio.NewReaderSize(rc, 64<<10)}
}

func (b *sseBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		line, err := b.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: pass it on as it is.
			b.out = append(b.out[:0], line...)
			break
		}
		if len(line) > 0 {
			b.out = append(b.out[:0], b.normalize(line)...)
		}
		if err != nil {
			if len(b.out) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *sseBody) Close() error { return b.src.Close() }

// lastData returns the last data line received (without "data:").
func (b *sseBody) lastData() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(bytes.TrimSpace(b.last))
}

var (
	dataPrefix   = []byte("data:")
	argumentsKey = []byte(`"arguments"`)
)

// normalize returns the line to hand on: unchanged unless it is a data line
// whose tool-call arguments are not a JSON string.
func (b *sseBody) normalize(line []byte) []byte {
	if !bytes.HasPrefix(line, dataPrefix) {
		return line
	}
	payload := bytes.TrimSpace(line[len(dataPrefix):])
	b.mu.Lock()
	b.last = append(b.last[:0], payload...)
	b.mu.Unlock()
	if !argsNotString(payload) {
		return line
	}
	var chunk map[string]json.RawMessage
	if json.Unmarshal(payload, &chunk) != nil {
		return line // go-openai reports it; lastData says what it was
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(chunk["choices"], &choices) != nil {
		return line
	}
	changed := false
	for _, ch := range choices {
		var delta map[string]json.RawMessage
		if json.Unmarshal(ch["delta"], &delta) != nil {
			continue
		}
		var calls []map[string]json.RawMessage
		if json.Unmarshal(delta["tool_calls"], &calls) != nil {
			continue
		}
		callsChanged := false
		for _, c := range calls {
			var fn map[string]json.RawMessage
			if json.Unmarshal(c["function"], &fn) != nil {
				continue
			}
			a, ok := fn["arguments"]
			if !ok || len(bytes.TrimSpace(a)) == 0 || bytes.TrimSpace(a)[0] == '"' {
				continue
			}
			var s []byte
			if !bytes.Equal(bytes.TrimSpace(a), []byte("null")) {
				var compact bytes.Buffer
				if json.Compact(&compact, a) != nil {
					continue
				}
				s = compact.Bytes()
			}
			enc, _ := json.Marshal(string(s))
			fn["arguments"] = enc
			c["function"], _ = json.Marshal(fn)
			callsChanged = true
		}
		if callsChanged {
			delta["tool_calls"], _ = json.Marshal(calls)
			ch["delta"], _ = json.Marshal(delta)
			changed = true
		}
	}
	if !changed {
		return line
	}
	chunk["choices"], _ = json.Marshal(choices)
	out, err := json.Marshal(chunk)
	if err != nil {
		return line
	}
	return append(append([]byte("data: "), out...), '\n')
}

// argsNotString reports, cheaply, whether some "arguments" key of the
// payload has a value that is not a JSON string.
func argsNotString(payload []byte) bool {
	for rest := payload; ; {
		i := bytes.Index(rest, argumentsKey)
		if i < 0 {
			return false
		}
		rest = rest[i+len(argumentsKey):]
		j := 0
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j >= len(rest) || rest[j] != ':' {
			continue
		}
		j++
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j < len(rest) && rest[j] != '"' {
			return true
		}
	}
}

// badChunk turns a decoding failure of a stream chunk into a model error that
// says what was received (nil when err is not one).
func (info *attemptInfo) badChunk(p *Provider, err error) *ModelError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if info == nil || info.sse == nil || (!errors.As(err, &syn) && !errors.As(err, &typ)) {
		return nil
	}
	return &ModelError{Err: err, Msg: p.redact(fmt.Sprintf(
		"the model endpoint sent a stream chunk this agent cannot read (%v); it received: %s. "+
			"The server does not speak the OpenAI chat-completions stream format; check OPENAI_BASE_URL / --base-url", err, snippet(info.sse.lastData())))}
}

// snippet bounds received text quoted in a message.
func snippet(s string) string {
	if len(s) > 300 {
		return strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}
