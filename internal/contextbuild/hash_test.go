package contextbuild

import (
	"bytes"
	"strings"
	"testing"

	"agent/internal/agent"
)

// TestLayerHashIsTheTextHash: a layer hashes its messages as they come
// (it no longer builds the layer's text to hash it); the hashes are those of
// the text it used to build — shortHash over each message's role, content,
// call id and calls, NUL-separated — so the hashes journaled by earlier runs
// still compare equal (ContextReport.FirstChanged of a resumed run).
func TestLayerHashIsTheTextHash(t *testing.T) {
	msgs := []agent.Message{
		{Role: agent.RoleUser, Content: "[agent] Your work so far on the person's current request (their message is repeated after these rounds):"},
		{Role: agent.RoleAssistant, Content: "reading", ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}, {ID: "c2", Name: "grep", Arguments: `{"pattern":"x"}`}}},
		{Role: agent.RoleTool, Content: strings.Repeat("output line\n", 9000), ToolCallID: "c1"},
		{Role: agent.RoleTool, Content: "", ToolCallID: "c2"},
		{Role: agent.RoleUser, Content: "ünïcode \x00 and a NUL"},
	}
	var old strings.Builder
	for _, m := range msgs {
		old.WriteString(string(m.Role) + "\x00" + m.Content + "\x00" + m.ToolCallID + "\x00")
		for _, c := range m.ToolCalls {
			old.WriteString(c.ID + "\x00" + c.Name + "\x00" + c.Arguments + "\x00")
		}
	}
	for _, keep := range []bool{false, true} {
		l := &layer{keep: keep}
		for k := range msgs {
			l.hashMsg(&msgs[k])
		}
		if got, want := l.hash(), shortHash(old.String()); got != want {
			t.Errorf("keep=%v: hash %s, want %s", keep, got, want)
		}
		if keep && !bytes.Equal(l.text, []byte(old.String())) {
			t.Errorf("the kept text differs from the hashed text")
		}
		if !keep && l.text != nil {
			t.Errorf("a layer that does not keep its text kept %d bytes", len(l.text))
		}
	}
	if got, want := (&layer{}).hash(), shortHash(""); got != want {
		t.Errorf("empty layer: hash %s, want %s", got, want)
	}
}
