package capture

import (
	"fmt"
	"strings"
	"unicode"
)

// taskTOML is the task.toml of the run: the facts as keys, where they came
// from and what the run did as comments, and an [expect] section for a
// person to fill in.
func (r *run) taskTOML(fixture string, task *Task) string {
	var b strings.Builder
	comment(&b, "Captured by `agent eval capture` from run %s (model %s, workspace %s).", r.id, r.start.Model, r.start.Workspace)
	comment(&b, "fixture/: %s.", fixture)
	if len(task.Skipped) > 0 {
		comment(&b, "Left out of fixture/ (symlinks, which the eval cannot copy): %s.", strings.Join(task.Skipped, ", "))
	}
	if len(task.Redacted) > 0 {
		comment(&b, "Secrets redacted in fixture/ (the run saw the real values): %s.", strings.Join(task.Redacted, ", "))
	}
	answers := len(r.script.Turns)
	if n := len(r.script.Turns); n > 0 && r.script.Turns[n-1].HTTPStatus != 0 {
		answers--
	}
	comment(&b, "turns.json: the model's %d answer(s) from the journal, already redacted, with their tool-call ids.", answers)
	if n := len(r.script.Turns); n > 0 && r.script.Turns[n-1].HTTPStatus != 0 {
		comment(&b, "Its last turn, an HTTP %d, stands for the model error that ended the run.", r.script.Turns[n-1].HTTPStatus)
	}
	if r.resumes > 0 {
		comment(&b, "The run was resumed %d time(s); the task runs it in one go.", r.resumes)
	}
	for i, m := range r.later {
		comment(&b, "The person's message %d after the prompt is not replayed (a task has one prompt): %s", i+2, m)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "prompt = %s\n", tomlString(r.prompt))
	desc := fmt.Sprintf("captured from run %s, which ended %s", r.id, r.outcome.Status)
	if f := r.outcome.Failure; f != nil {
		desc += fmt.Sprintf(" (%s)", f.Class)
	}
	fmt.Fprintf(&b, "description = %s\n", tomlString(desc))
	if r.start.MaxSteps > 0 {
		fmt.Fprintf(&b, "max_steps = %d\n", r.start.MaxSteps)
	}
	b.WriteString("\n[policy]\n")
	mode := r.start.Approval
	if mode == "" {
		mode = "ask"
	}
	fmt.Fprintf(&b, "mode = %s\n", tomlString(string(mode)))
	if len(r.start.Allow) > 0 {
		fmt.Fprintf(&b, "allow = %s\n", tomlArray(r.start.Allow))
	}
	if len(r.start.Deny) > 0 {
		fmt.Fprintf(&b, "deny = %s\n", tomlArray(r.start.Deny))
	}
	if len(r.decisions) > 0 {
		comment(&b, "The person's decisions, in the order they were made.")
	}
	for _, d := range r.decisions {
		b.WriteString("\n[[policy.decisions]]\n")
		fmt.Fprintf(&b, "call = %s\ndecision = %s\n", tomlString(d.call), tomlString(d.decision))
		if d.note != "" {
			fmt.Fprintf(&b, "note = %s\n", tomlString(d.note))
		}
		if d.scope != "" {
			fmt.Fprintf(&b, "scope = %s\n", tomlString(d.scope))
		}
	}
	b.WriteString("\n[expect]\n")
	comment(&b, "Fill in what the run should do: status, class, check, files, trace (see evals/README.md).")
	comment(&b, "Until then the task expects the default, a completed run. What the run did when captured:")
	comment(&b, "status = %s", tomlString(string(r.outcome.Status)))
	if f := r.outcome.Failure; f != nil {
		comment(&b, "class = %s", tomlString(string(f.Class)))
		comment(&b, "reason (event %d): %s", f.Seq, f.Reason)
	}
	if len(r.outcome.Changed) == 0 {
		comment(&b, "files changed: none")
	} else {
		comment(&b, "files changed: %s", strings.Join(r.outcome.Changed, ", "))
	}
	return b.String()
}

// comment writes one TOML comment line: one line of printable text.
func comment(b *strings.Builder, format string, a ...any) {
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, fmt.Sprintf(format, a...))
	b.WriteString("# " + oneLine(s, 400) + "\n")
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlArray(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = tomlString(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// String is the outcome in one line, for the command's report.
func (o Outcome) String() string {
	s := string(o.Status)
	if o.Failure != nil {
		s += fmt.Sprintf(", class %s: %s", o.Failure.Class, o.Failure.Reason)
	}
	return s
}
