package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"agent/internal/event"
)

func TestRegistryContents(t *testing.T) {
	r := Default()
	want := []string{"read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "run_command", "update_plan"}
	if got := r.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	risks := map[string]event.Risk{
		"read_file": event.RiskRead, "list_dir": event.RiskRead, "glob": event.RiskRead, "grep": event.RiskRead,
		"update_plan": event.RiskRead, "write_file": event.RiskWrite, "edit_file": event.RiskWrite,
		"run_command": event.RiskExec,
	}
	specs := r.Specs()
	if len(specs) != len(want) {
		t.Fatalf("Specs() has %d entries", len(specs))
	}
	for i, tool := range r.Tools() {
		if tool.Name() != want[i] || specs[i].Name != want[i] {
			t.Errorf("tool %d is %s / spec %s, want %s", i, tool.Name(), specs[i].Name, want[i])
		}
		if tool.Risk() != risks[tool.Name()] {
			t.Errorf("%s risk %q, want %q", tool.Name(), tool.Risk(), risks[tool.Name()])
		}
		if got, ok := r.Get(tool.Name()); !ok || got.Name() != tool.Name() {
			t.Errorf("Get(%s) failed", tool.Name())
		}
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
		var schema map[string]any
		if err := json.Unmarshal(r.SchemaJSON(tool.Name()), &schema); err != nil {
			t.Fatalf("%s schema: %v", tool.Name(), err)
		}
		if schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("%s schema must be a closed object: %s", tool.Name(), r.SchemaJSON(tool.Name()))
		}
		s := tool.Schema()
		for _, req := range s.Required {
			if _, ok := s.Properties[req]; !ok {
				t.Errorf("%s requires %q which is not a property", tool.Name(), req)
			}
		}
		if string(specs[i].Parameters) != string(r.SchemaJSON(tool.Name())) {
			t.Errorf("%s spec parameters differ from SchemaJSON", tool.Name())
		}
	}
	if _, ok := r.Get("rm_rf"); ok {
		t.Error("Get(rm_rf) found a tool")
	}
	if r.SchemaJSON("rm_rf") != nil {
		t.Error("SchemaJSON of an unknown tool is not nil")
	}
}

func TestValidateRejects(t *testing.T) {
	r := Default()
	tests := []struct {
		name, tool, args string
		want             string // substring of the message
		field            string
	}{
		{"unknown tool", "delete_everything", `{}`,
			`delete_everything: unknown tool "delete_everything"; known tools: read_file, list_dir, glob, grep, write_file, edit_file, run_command, update_plan`, ""},
		{"broken json", "read_file", `{"path": "a.txt"`, `read_file: arguments are not valid JSON`, ""},
		{"trailing garbage", "read_file", `{"path": "a.txt"} {"x":1}`, `read_file: arguments are not valid JSON: unexpected data`, ""},
		{"not an object", "read_file", `["a.txt"]`, `read_file: arguments must be a JSON object, got array`, ""},
		{"string instead of object", "read_file", `"a.txt"`, `read_file: arguments must be a JSON object, got string`, ""},
		{"missing required", "read_file", `{}`, `read_file: missing required field "path"`, "path"},
		{"empty args missing required", "read_file", ``, `read_file: missing required field "path"`, "path"},
		{"required null", "write_file", `{"path":"a","content":null}`, `write_file: missing required field "content"`, "content"},
		{"extra field", "read_file", `{"path":"a","encoding":"utf8"}`, `read_file: unknown field "encoding" (allowed: limit, offset, path)`, "encoding"},
		{"integer as string", "read_file", `{"path":"a","limit":"5"}`, `read_file: field "limit" must be an integer, got string`, "limit"},
		{"integer as fraction", "read_file", `{"path":"a","offset":1.5}`, `read_file: field "offset" must be an integer, got number 1.5`, "offset"},
		{"integer below minimum", "read_file", `{"path":"a","offset":0}`, `read_file: field "offset" must be at least 1, got 0`, "offset"},
		{"integer above maximum", "run_command", `{"command":"ls","timeout_sec":4000}`, `run_command: field "timeout_sec" must be at most 3600, got 4000`, "timeout_sec"},
		{"string as number", "grep", `{"pattern":42}`, `grep: field "pattern" must be a string, got integer`, "pattern"},
		{"string as array", "write_file", `{"path":["a"],"content":""}`, `write_file: field "path" must be a string, got array`, "path"},
		{"boolean as string", "edit_file", `{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`,
			`edit_file: field "replace_all" must be a boolean (true or false), got string`, "replace_all"},
		{"array as string", "update_plan", `{"plan":"do it"}`, `update_plan: field "plan" must be an array, got string`, "plan"},
		{"item not object", "update_plan", `{"plan":["do it"]}`, `update_plan: field "plan[0]" must be an object, got string`, "plan[0]"},
		{"bad enum", "update_plan", `{"plan":[{"step":"a","status":"done"},{"step":"b","status":"finished"}]}`,
			`update_plan: field "plan[1].status" must be one of "pending", "in_progress", "done", got "finished"`, "plan[1].status"},
		{"nested missing", "update_plan", `{"plan":[{"step":"a"}]}`, `update_plan: missing required field "plan[0].status"`, "plan[0].status"},
		{"nested extra", "update_plan", `{"plan":[{"step":"a","status":"done","owner":"me"}]}`,
			`update_plan: unknown field "plan[0].owner" (allowed: status, step)`, "plan[0].owner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, args, err := r.Validate(tt.tool, tt.args)
			if err == nil {
				t.Fatalf("Validate accepted %s(%s) as %s", tt.tool, tt.args, args)
			}
			if tool != nil || args != nil {
				t.Errorf("Validate returned a tool or args along with an error")
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T is not an *ArgError: %v", err, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.want) {
				t.Errorf("message\n%s\nwant prefix\n%s", msg, tt.want)
			}
			if ae.Field != tt.field {
				t.Errorf("Field = %q, want %q", ae.Field, tt.field)
			}
			if schema := r.SchemaJSON(tt.tool); schema != nil && !strings.Contains(msg, string(schema)) {
				t.Errorf("message does not include the schema:\n%s", msg)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	r := Default()
	tests := []struct {
		tool, args, want string
	}{
		{"list_dir", ``, `{}`},
		{"list_dir", `  `, `{}`},
		{"list_dir", `{"path":null}`, `{}`},
		{"read_file", `{"path":"a","limit":null,"offset":2}`, `{"offset":2,"path":"a"}`},
		{"read_file", `{"path":"a","limit":5.0}`, `{"limit":5,"path":"a"}`},
		{"run_command", ` {"command":"ls","timeout_sec":3600} `, `{"command":"ls","timeout_sec":3600}`},
		{"update_plan", `{"plan":[]}`, `{"plan":[]}`},
	}
	for _, tt := range tests {
		tool, args, err := r.Validate(tt.tool, tt.args)
		if err != nil {
			t.Errorf("Validate(%s, %s): %v", tt.tool, tt.args, err)
			continue
		}
		if tool.Name() != tt.tool || string(args) != tt.want {
			t.Errorf("Validate(%s, %s) = %s %s, want %s", tt.tool, tt.args, tool.Name(), args, tt.want)
		}
	}
}

func TestCallTurnsErrorsIntoToolErrors(t *testing.T) {
	env, _ := newWorkspace(t)
	res, err := Default().Call(context.Background(), env, "read_file", `{"path": 7}`)
	if err == nil || !res.IsError {
		t.Fatalf("want a tool error, got %+v, %v", res, err)
	}
	if !strings.Contains(res.Output, `field "path" must be a string, got integer`) || !strings.Contains(res.Output, `"additionalProperties":false`) {
		t.Errorf("output does not name the problem and the schema: %s", res.Output)
	}
	// A tool run without Validate still refuses extra fields.
	_, err = ReadFile{}.Run(context.Background(), env, json.RawMessage(`{"path":"a","bogus":1}`))
	var ae *ArgError
	if !errors.As(err, &ae) {
		t.Errorf("Run with an extra field: %v, want *ArgError", err)
	}
	// No workspace: an error, not a panic.
	if _, err := (ListDir{}).Run(context.Background(), nil, nil); err == nil {
		t.Error("Run without env succeeded")
	}
}

func TestUpdatePlan(t *testing.T) {
	env, _ := newWorkspace(t)
	var got []PlanStep
	env.Plan = func(p []PlanStep) { got = p }
	plan := []PlanStep{{"read the code", "done"}, {"fix the bug", "in_progress"}, {"run the tests", "pending"}}
	res := mustCall(t, env, "update_plan", map[string]any{"plan": plan})
	if !reflect.DeepEqual(got, plan) {
		t.Errorf("env.Plan got %v, want %v", got, plan)
	}
	want := "plan (1/3 done):\n[x] read the code\n[>] fix the bug\n[ ] run the tests\n"
	if res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
	if res.Changed != nil || res.ExitCode != nil {
		t.Errorf("update_plan reported changes: %+v", res)
	}
	env.Plan = nil
	if res := mustCall(t, env, "update_plan", `{"plan":[]}`); res.Output != "plan cleared" {
		t.Errorf("empty plan: %q", res.Output)
	}
	if _, err := call(t, env, "update_plan", `{"plan":[{"step":"  ","status":"done"}]}`); err == nil {
		t.Error("an empty step was accepted")
	}
}
