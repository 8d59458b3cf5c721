package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ArgError is a malformed tool call: unknown tool, broken JSON, a missing,
// extra or mistyped field, a value outside its enum or range. Its message names
// the problem and carries the tool's schema so the model can correct itself.
type ArgError struct {
	Tool    string          // the tool name the model used
	Field   string          // the offending field ("plan[1].status"), "" for the whole call
	Problem string          // the problem, without the tool prefix or schema
	Schema  json.RawMessage // the tool's schema, or nil for an unknown tool
}

func (e *ArgError) Error() string {
	var b strings.Builder
	b.WriteString(e.Tool)
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if len(e.Schema) > 0 {
		b.WriteString("\nexpected arguments (JSON schema): ")
		b.Write(e.Schema)
	}
	return b.String()
}

// Schema builders, so each tool file declares its schema in a few lines.

func strField(desc string) *Schema { return &Schema{Type: "string", Description: desc} }
func boolField(desc string) *Schema {
	return &Schema{Type: "boolean", Description: desc}
}
func intField(desc string, lo, hi *int) *Schema {
	return &Schema{Type: "integer", Description: desc, Minimum: lo, Maximum: hi}
}
func enumField(desc string, values ...string) *Schema {
	return &Schema{Type: "string", Description: desc, Enum: values}
}
func objectOf(props map[string]*Schema, required ...string) *Schema {
	no := false
	return &Schema{Type: "object", Properties: props, Required: required, AdditionalProperties: &no}
}
func ptr(n int) *int { return &n }

// validateArgs checks raw against s and returns the arguments normalised: an
// empty string becomes {}, and null values of optional fields are dropped (some
// models send null for "absent").
func validateArgs(tool string, s *Schema, raw string) (json.RawMessage, *ArgError) {
	fail := func(field, format string, a ...any) (json.RawMessage, *ArgError) {
		return nil, &ArgError{Tool: tool, Field: field, Problem: fmt.Sprintf(format, a...)}
	}
	obj, aerr := parseObject(tool, raw)
	if aerr != nil {
		return nil, aerr
	}
	norm, aerr := checkValue(s, obj, "")
	if aerr != nil {
		aerr.Tool = tool
		return nil, aerr
	}
	out, err := json.Marshal(norm)
	if err != nil {
		return fail("", "arguments cannot be re-encoded: %v", err)
	}
	return out, nil
}

// checkArgsWith validates raw for a tool that checks its own schema: one
// JSON object, then the tool's verdict. The arguments go on as the model
// wrote them ("" becomes {}).
func checkArgsWith(tool string, ac ArgChecker, raw string) (json.RawMessage, *ArgError) {
	if _, aerr := parseObject(tool, raw); aerr != nil {
		return nil, aerr
	}
	norm := json.RawMessage(strings.TrimSpace(raw))
	if len(norm) == 0 {
		norm = json.RawMessage("{}")
	}
	if err := ac.CheckArgs(norm); err != nil {
		return nil, &ArgError{Tool: tool, Problem: err.Error()}
	}
	return norm, nil
}

// parseObject decodes raw, which must be one JSON object ("" is {}).
func parseObject(tool, raw string) (map[string]any, *ArgError) {
	fail := func(format string, a ...any) (map[string]any, *ArgError) {
		return nil, &ArgError{Tool: tool, Problem: fmt.Sprintf(format, a...)}
	}
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		trimmed = "{}"
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fail("arguments are not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fail("arguments are not valid JSON: unexpected data after the JSON object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fail("arguments must be a JSON object, got %s", describe(v))
	}
	return obj, nil
}

// checkValue validates v against s and returns it normalised (integers
// written as integers); field is the path used in messages.
func checkValue(s *Schema, v any, field string) (any, *ArgError) {
	name := field
	if name == "" {
		name = "arguments"
	}
	bad := func(format string, a ...any) (any, *ArgError) {
		return nil, &ArgError{Field: field, Problem: fmt.Sprintf(format, a...)}
	}
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("field %q must be an object, got %s", name, describe(v))
		}
		return checkObject(s, obj, field)
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return bad("field %q must be an array, got %s", name, describe(v))
		}
		if s.Items != nil {
			for i, item := range arr {
				norm, err := checkValue(s.Items, item, fmt.Sprintf("%s[%d]", field, i))
				if err != nil {
					return nil, err
				}
				arr[i] = norm
			}
		}
		return arr, nil
	case "string":
		str, ok := v.(string)
		if !ok {
			return bad("field %q must be a string, got %s", name, describe(v))
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			return bad("field %q must be one of %s, got %q", name, quoteList(s.Enum), str)
		}
		return str, nil
	case "boolean":
		if _, ok := v.(bool); !ok {
			return bad("field %q must be a boolean (true or false), got %s", name, describe(v))
		}
		return v, nil
	case "integer":
		num, ok := v.(json.Number)
		if !ok {
			return bad("field %q must be an integer, got %s", name, describe(v))
		}
		n, ok := integral(num)
		if !ok {
			return bad("field %q must be an integer, got number %s", name, num)
		}
		if s.Minimum != nil && n < int64(*s.Minimum) {
			return bad("field %q must be at least %d, got %d", name, *s.Minimum, n)
		}
		if s.Maximum != nil && n > int64(*s.Maximum) {
			return bad("field %q must be at most %d, got %d", name, *s.Maximum, n)
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	return bad("schema error: unsupported type %q for field %q", s.Type, name)
}

func checkObject(s *Schema, obj map[string]any, field string) (any, *ArgError) {
	sub := func(k string) string {
		if field == "" {
			return k
		}
		return field + "." + k
	}
	for _, k := range s.Required {
		if val, ok := obj[k]; !ok || val == nil {
			return nil, &ArgError{Field: sub(k), Problem: fmt.Sprintf("missing required field %q", sub(k))}
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ps, ok := s.Properties[k]
		if !ok {
			if s.AdditionalProperties != nil && !*s.AdditionalProperties {
				return nil, &ArgError{Field: sub(k), Problem: fmt.Sprintf("unknown field %q (allowed: %s)", sub(k), strings.Join(propNames(s), ", "))}
			}
			continue
		}
		if obj[k] == nil { // optional and null: treat as absent
			delete(obj, k)
			continue
		}
		norm, err := checkValue(ps, obj[k], sub(k))
		if err != nil {
			return nil, err
		}
		obj[k] = norm
	}
	return obj, nil
}

// integral reports the value of num if it is a whole number that fits an int
// (5 and 5.0 are integers; 5.5 and 1e30 are not).
func integral(num json.Number) (int64, bool) {
	if n, err := num.Int64(); err == nil {
		return n, true
	}
	f, err := num.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// describe names a decoded JSON value's type for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, ok := integral(x); ok {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func propNames(s *Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// decodeArgs decodes already-validated arguments into v, strictly, so that a
// tool called without Validate (tests, a resumed call) still refuses garbage.
func decodeArgs(tool string, raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &ArgError{Tool: tool, Problem: fmt.Sprintf("bad arguments: %v", err)}
	}
	return nil
}
