package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Registry is the set of tools offered to the model. It is built once, with
// the built-in tools, and may grow with Add (the tools of MCP servers, known
// once they have started); it is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	tools   []Tool
	byName  map[string]Tool
	schema  map[string]*Schema // built once: Schema() builds a new one each call
	schemas map[string]json.RawMessage
}

// Spec describes one tool to the model: the fields of a function declaration.
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema of the arguments object
}

// Default returns the registry of the eight tools of the contract, in the
// contract's order.
func Default() *Registry {
	return NewRegistry(
		ReadFile{}, ListDir{}, Glob{}, Grep{},
		WriteFile{}, EditFile{}, RunCommand{}, UpdatePlan{},
	)
}

// NewRegistry builds a registry of the given tools, in that order. It panics on
// a duplicate name or a schema that does not marshal: both are programming errors.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}, schema: map[string]*Schema{}, schemas: map[string]json.RawMessage{}}
	if err := r.Add(tools...); err != nil {
		panic("tools: " + err.Error())
	}
	return r
}

// Add registers more tools, after those already there. A name already
// taken or a schema that does not marshal is an error, and then none of
// them is added.
func (r *Registry) Add(tools ...Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	schema := make(map[string]*Schema, len(tools))
	schemas := make(map[string]json.RawMessage, len(tools))
	for _, t := range tools {
		name := t.Name()
		if _, dup := r.byName[name]; dup {
			return fmt.Errorf("duplicate tool %s", name)
		}
		if _, dup := schema[name]; dup {
			return fmt.Errorf("duplicate tool %s", name)
		}
		s := t.Schema()
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("schema of %s: %w", name, err)
		}
		schema[name], schemas[name] = s, b
	}
	for _, t := range tools {
		name := t.Name()
		r.tools = append(r.tools, t)
		r.byName[name] = t
		r.schema[name] = schema[name]
		r.schemas[name] = schemas[name]
	}
	return nil
}

// Tools returns the tools in registration order (a copy).
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Tool(nil), r.tools...)
}

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name()
	}
	return names
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// SchemaJSON returns the JSON schema of the named tool's arguments, or nil for
// an unknown tool. The caller must not modify it.
func (r *Registry) SchemaJSON(name string) json.RawMessage {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.schemas[name]
}

// Specs returns the declarations to send to the model, in registration order.
func (r *Registry) Specs() []Spec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	specs := make([]Spec, len(r.tools))
	for i, t := range r.tools {
		specs[i] = Spec{Name: t.Name(), Description: t.Description(), Parameters: r.schemas[t.Name()]}
	}
	return specs
}

// Validate checks a call the model asked for. Its output is untrusted: an
// unknown tool, broken JSON, a missing, extra or mistyped field, or a value
// outside its enum or range is an *ArgError whose message names the problem and
// includes the schema. On success it returns the tool and the normalised
// arguments ("" becomes {}, null optional fields are dropped) to pass to Run.
func (r *Registry) Validate(name, args string) (Tool, json.RawMessage, error) {
	r.mu.RLock()
	t, ok := r.byName[name]
	s, sj := r.schema[name], r.schemas[name]
	r.mu.RUnlock()
	if !ok {
		return nil, nil, &ArgError{
			Tool:    name,
			Problem: fmt.Sprintf("unknown tool %q; known tools: %s", name, strings.Join(r.Names(), ", ")),
		}
	}
	var norm json.RawMessage
	var aerr *ArgError
	if ac, ok := t.(ArgChecker); ok {
		norm, aerr = checkArgsWith(name, ac, args)
	} else {
		norm, aerr = validateArgs(name, s, args)
	}
	if aerr != nil {
		aerr.Schema = sj
		return nil, nil, aerr
	}
	if pc, ok := t.(Prechecker); ok {
		if err := pc.Precheck(norm); err != nil {
			return nil, nil, err
		}
	}
	return t, norm, nil
}

// Prechecker is implemented by tools that refuse some well-formed calls
// outright (before approval): the error is the tool error the model gets.
type Prechecker interface {
	Precheck(args json.RawMessage) error
}

// Call validates and runs one call and always returns a Result for the model:
// a validation failure or an error from Run becomes an IsError result whose
// output is the error's message. The error is returned as well (nil on
// success) so the caller can tell, e.g., context.Canceled apart.
func (r *Registry) Call(ctx context.Context, env *Env, name, args string) (Result, error) {
	t, norm, err := r.Validate(name, args)
	if err != nil {
		return Result{Output: Truncate(err.Error(), MaxOutput), IsError: true}, err
	}
	return Exec(ctx, env, t, norm)
}

// Exec runs t and folds an error into the Result (IsError, output = message).
// A partial Result returned along with an error keeps its fields.
func Exec(ctx context.Context, env *Env, t Tool, args json.RawMessage) (Result, error) {
	res, err := t.Run(ctx, env, args)
	if err != nil {
		res.IsError = true
		msg := err.Error()
		var ae *ArgError
		if errors.As(err, &ae) && len(ae.Schema) == 0 {
			ae.Schema, _ = json.Marshal(t.Schema())
			msg = ae.Error()
		}
		if res.Output == "" {
			res.Output = msg
		} else if !strings.Contains(res.Output, msg) {
			res.Output = res.Output + "\n" + msg
		}
		res.Output = Truncate(res.Output, MaxOutput)
	}
	return res, err
}

// checkEnv returns an error when env cannot run a tool.
func checkEnv(tool string, env *Env) error {
	if env == nil || env.Workspace == "" {
		return fmt.Errorf("%s: no workspace configured", tool)
	}
	return nil
}
