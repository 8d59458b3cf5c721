package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Registry is the set of tools offered to the model. It is plain data, built
// once and read-only afterwards, so it is safe for concurrent use.
type Registry struct {
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
	for _, t := range tools {
		name := t.Name()
		if _, dup := r.byName[name]; dup {
			panic("tools: duplicate tool " + name)
		}
		s := t.Schema()
		b, err := json.Marshal(s)
		if err != nil {
			panic(fmt.Sprintf("tools: schema of %s: %v", name, err))
		}
		r.tools = append(r.tools, t)
		r.byName[name] = t
		r.schema[name] = s
		r.schemas[name] = b
	}
	return r
}

// Tools returns the tools in registration order (a copy).
func (r *Registry) Tools() []Tool { return append([]Tool(nil), r.tools...) }

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name()
	}
	return names
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// SchemaJSON returns the JSON schema of the named tool's arguments, or nil for
// an unknown tool. The caller must not modify it.
func (r *Registry) SchemaJSON(name string) json.RawMessage { return r.schemas[name] }

// Specs returns the declarations to send to the model, in registration order.
func (r *Registry) Specs() []Spec {
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
	t, ok := r.byName[name]
	if !ok {
		return nil, nil, &ArgError{
			Tool:    name,
			Problem: fmt.Sprintf("unknown tool %q; known tools: %s", name, strings.Join(r.Names(), ", ")),
		}
	}
	norm, aerr := validateArgs(name, r.schema[name], args)
	if aerr != nil {
		aerr.Schema = r.schemas[name]
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
