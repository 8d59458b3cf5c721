package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"agent/internal/event"
)

// rawTool is a tool with a schema of its own, as an MCP server's is.
type rawTool struct {
	name  string
	check func(json.RawMessage) error
}

func (t rawTool) Name() string        { return t.name }
func (t rawTool) Description() string { return "a tool from elsewhere" }
func (t rawTool) Schema() *Schema {
	return &Schema{Raw: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)}
}
func (t rawTool) Risk() event.Risk { return event.RiskExec }
func (t rawTool) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{Output: "ran"}, nil
}
func (t rawTool) CheckArgs(raw json.RawMessage) error { return t.check(raw) }

func TestRegistryAddRawSchema(t *testing.T) {
	r := Default()
	needN := func(raw json.RawMessage) error {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		if _, ok := m["n"].(float64); !ok {
			return errors.New(`field "n" must be a number`)
		}
		return nil
	}
	if err := r.Add(rawTool{name: "mcp__s__sum", check: needN}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(rawTool{name: "mcp__s__other", check: needN}, rawTool{name: "read_file", check: needN}); err == nil {
		t.Fatal("Add accepted a name that is taken")
	}
	if _, ok := r.Get("mcp__s__other"); ok {
		t.Fatal("a failed Add registered part of its tools")
	}
	names := r.Names()
	if names[len(names)-1] != "mcp__s__sum" || len(names) != 9 {
		t.Fatalf("Names() = %v", names)
	}
	// The model sees the tool's own schema, as it is.
	if got := string(r.SchemaJSON("mcp__s__sum")); got != `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}` {
		t.Fatalf("schema sent: %s", got)
	}
	tests := []struct {
		args, problem string
	}{
		{`{"n": 2}`, ""},
		{``, `field "n" must be a number`},
		{`{"n": "two"}`, `field "n" must be a number`},
		{`[1]`, "must be a JSON object"},
		{`{"n": 1} x`, "not valid JSON"},
	}
	for _, tc := range tests {
		_, norm, err := r.Validate("mcp__s__sum", tc.args)
		if tc.problem == "" {
			if err != nil || string(norm) != tc.args {
				t.Errorf("Validate(%s) = %s, %v", tc.args, norm, err)
			}
			continue
		}
		var ae *ArgError
		if !errors.As(err, &ae) || !strings.Contains(ae.Error(), tc.problem) || !strings.Contains(ae.Error(), `"required":["n"]`) {
			t.Errorf("Validate(%q) error %v, want %q with the schema", tc.args, err, tc.problem)
		}
	}
}

func TestSchemaMarshalSubset(t *testing.T) {
	b, err := json.Marshal(ReadFile{}.Schema())
	if err != nil || !strings.Contains(string(b), `"additionalProperties":false`) || strings.Contains(string(b), "Raw") {
		t.Fatalf("built-in schema marshals as %s (%v)", b, err)
	}
}

func TestRemote(t *testing.T) {
	for name, want := range map[string]bool{"mcp__x__y": true, "run_command": false, "mcp_x": false} {
		if Remote(name) != want {
			t.Errorf("Remote(%q) = %v", name, !want)
		}
	}
}
