package tui

import (
	"path"

	"agent/internal/lazyre"
	"strings"

	"agent/internal/event"
	"agent/internal/protocol"
)

// What the transcript prints for a message of the person's: the message
// as the composer showed it (a folded paste as its label, an @file as its
// name), never the pasted text or the attached file's content, which go to
// the model whole.

// expect records how the transcript shows the next message the session
// sends, when that differs from what the model gets.
func (t *transcriptState) expect(display string) {
	t.shown = append(t.shown, display)
}

// userText is what the transcript shows for a user message journaled with
// text: the composer's display of a message this session sent (in order),
// else text with attached files named, not printed.
func (t *transcriptState) userText(text string) string {
	if len(t.shown) > 0 {
		d := t.shown[0]
		t.shown = t.shown[1:]
		if d != "" {
			return d
		}
	}
	return foldAttachments(text)
}

// attachedRe matches the header withAttachments puts before a file's
// content (or in place of a file it could not attach).
var attachedRe = lazyre.New(`(?m)^\[attached ([^\]\n]+?)(?: \(first \d+ KiB; read_file shows the rest\)|: [^\]\n]*)?\]$`)

// foldAttachments cuts the attached files' contents out of a message (a
// reopened run's, whose composer display is gone), naming the files.
func foldAttachments(text string) string {
	i := strings.Index(text, "\n\n[attached ")
	if i < 0 {
		return text
	}
	var names []string
	for _, m := range attachedRe.FindAllStringSubmatch(text[i:], -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		return text
	}
	return text[:i] + "\n[attached: " + strings.Join(names, ", ") + "]"
}

// allowedBy names what allowed a call without asking: a run grant (an
// earlier "allow for this run"), or an allow rule; "" when a person or the
// mode did.
func allowedBy(d *event.ApprovalData) string {
	switch {
	case d.Decision != event.Allow || d.Rule == "":
		return ""
	case d.Source == event.SourceUser && d.Scope == event.ScopeRun && d.Grant == "":
		return "this run's grant " + d.Rule
	case d.Source == event.SourceRule:
		return "the rule " + d.Rule
	}
	return ""
}

// suggestRule is the broader rule "allow for this run" offers to edit (e):
// for a command, its program and subcommand with a glob ("go test *");
// for a file tool, the file's directory ("edit_file(internal/greet/*)").
// "" when the call leaves the sandbox (an allow covers that call only) or
// there is nothing broader to offer.
func suggestRule(req protocol.ApprovalRequest) string {
	if req.Escalation || req.Grant == "" {
		return ""
	}
	main := strings.TrimSpace(summarize(req.Tool, req.Arguments))
	if main == "" || strings.ContainsAny(main, "\n*?[\\") {
		return ""
	}
	switch req.Tool {
	case "run_command":
		w := strings.Fields(main)
		if len(w) == 0 || strings.ContainsAny(w[0], ";|&<>$`(){}") {
			return ""
		}
		prefix := w[0]
		if len(w) > 1 && !strings.HasPrefix(w[1], "-") && !strings.ContainsAny(w[1], "/.;|&<>$`(){}=") {
			prefix += " " + w[1]
		}
		return "run_command(" + prefix + " *)"
	case "edit_file", "write_file":
		if dir := path.Dir(main); dir != "." && dir != "/" {
			return req.Tool + "(" + dir + "/*)"
		}
	}
	return ""
}
