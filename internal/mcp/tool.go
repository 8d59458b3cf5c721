package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/internal/event"
	"agent/internal/tools"
)

// Tool is one tool of a server, as the model sees it: mcp__SERVER__TOOL.
type Tool struct {
	srv      *server
	name     string // mcp__SERVER__TOOL
	remote   string // the server's name for it
	desc     string
	schema   json.RawMessage // as sent to the model
	resolved *jsonschema.Resolved
	risk     event.Risk
}

var _ tools.ArgChecker = (*Tool)(nil)

// validName reports whether name is what model APIs accept as a function
// name: 1 to 64 letters, digits, _ or -.
func validName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func fullName(server, tool string) string { return tools.RemotePrefix + server + "__" + tool }

func toolLabel(server string, t *sdk.Tool) string {
	if t == nil {
		return fullName(server, "?")
	}
	return fullName(server, t.Name)
}

func quoteName(t *sdk.Tool) string {
	if t == nil {
		return "(null)"
	}
	name := t.Name
	if len(name) > 80 {
		name = name[:80] + "..."
	}
	return fmt.Sprintf("%q", name)
}

// newTool checks what a server says about one tool, which is untrusted,
// and adapts it. seen collects the names taken so far.
func newTool(s *server, t *sdk.Tool, seen map[string]bool) (*Tool, error) {
	if t == nil {
		return nil, errors.New("an empty entry in the tool list")
	}
	name := fullName(s.cfg.Name, t.Name)
	switch {
	case !utf8.ValidString(t.Name) || !validName(name):
		return nil, fmt.Errorf("its name gives %q, which is not 1 to 64 letters, digits, _ or -, as model APIs require", name)
	case seen[t.Name]:
		return nil, errors.New("the server offers two tools of that name")
	}
	seen[t.Name] = true
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	switch {
	case len(desc) > MaxDescription:
		return nil, fmt.Errorf("its description is %d bytes, more than the %d taken (a description that long is refused, not cut: it is text the model would read as instructions)", len(desc), MaxDescription)
	case !utf8.ValidString(desc):
		return nil, errors.New("its description is not valid UTF-8")
	}
	schema, resolved, err := checkSchema(t.InputSchema)
	if err != nil {
		return nil, err
	}
	risk := event.RiskExec
	if slices.Contains(s.cfg.ReadOnly, t.Name) {
		risk = event.RiskRead
	}
	cleanDesc := s.opt.Clean(desc)
	if cleanSchema := s.opt.Clean(string(schema)); cleanSchema != string(schema) {
		if !json.Valid([]byte(cleanSchema)) {
			return nil, errors.New("its schema holds what looks like a secret, and is not valid JSON without it")
		}
		schema = json.RawMessage(cleanSchema)
	}
	if cleanDesc == "" {
		cleanDesc = "A tool of the MCP server " + s.cfg.Name + "."
	}
	return &Tool{srv: s, name: name, remote: t.Name, desc: cleanDesc, schema: schema, resolved: resolved, risk: risk}, nil
}

// checkSchema checks an input schema: a JSON object, of type object if it
// says, small, that resolves with no reference outside itself. It returns
// the schema to send (without $schema, which model APIs do not need) and
// the resolved form the arguments are checked against.
func checkSchema(in any) (json.RawMessage, *jsonschema.Resolved, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, nil, fmt.Errorf("its input schema is not JSON: %v", err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > MaxSchema {
		return nil, nil, fmt.Errorf("its input schema is %d bytes, more than the %d taken", len(raw), MaxSchema)
	}
	var obj map[string]any
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, nil, fmt.Errorf("its input schema is not a JSON object (got %s)", preview(raw))
	}
	if typ, ok := obj["type"]; ok && typ != "object" {
		return nil, nil, fmt.Errorf("its input schema is not of type object (type %s); a tool's arguments are a JSON object", preview(mustJSON(typ)))
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, nil, fmt.Errorf("its input schema is not a JSON schema: %v", err)
	}
	resolved, err := js.Resolve(nil) // no loader: a remote $ref is refused, nothing is fetched
	if err != nil {
		return nil, nil, fmt.Errorf("its input schema does not resolve: %v", err)
	}
	delete(obj, "$schema")
	obj["type"] = "object"
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	return out, resolved, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func preview(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

func (t *Tool) Name() string                { return t.name }
func (t *Tool) Description() string         { return t.desc }
func (t *Tool) Schema() *tools.Schema       { return &tools.Schema{Raw: t.schema} }
func (t *Tool) Risk() event.Risk            { return t.risk }
func (t *Tool) Server() string              { return t.srv.cfg.Name }
func (t *Tool) RemoteName() string          { return t.remote }
func (t *Tool) SchemaJSON() json.RawMessage { return t.schema }

// CheckArgs validates the model's arguments against the server's schema.
func (t *Tool) CheckArgs(args json.RawMessage) error {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := t.resolved.Validate(v); err != nil {
		return fmt.Errorf("arguments do not match the tool's schema: %s", trimSchemaErr(err))
	}
	return nil
}

// trimSchemaErr shortens the validator's message to its point.
func trimSchemaErr(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "validating root: ")
	if len(msg) > 400 {
		msg = msg[:400] + "..."
	}
	return msg
}

// Run sends the call to the server and renders what it returns. A server
// that answers with isError gives a tool error; so does one that fails or
// dies during the call.
func (t *Tool) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) (tools.Result, error) {
	res, err := t.srv.call(ctx, t.remote, args)
	if err != nil {
		return tools.Result{}, err
	}
	out := render(res)
	return tools.Result{Output: tools.Truncate(out, tools.MaxOutput), IsError: res.IsError}, nil
}
