package approve

import (
	"encoding/json"
	"fmt"
	"image/color"
	"path"
	"sort"
	"strings"

	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Title is the question the prompt asks, in the person's words: "Edit
// shellwords.go?", "Write notes.md?", "Run command?", else "Allow TOOL?".
func Title(r Request) string {
	base := path.Base(termtext.OneLine(r.Summary))
	switch {
	case r.Tool == "run_command":
		return "Run command?"
	case r.Tool == "edit_file" && r.Summary != "":
		return "Edit " + base + "?"
	case r.Tool == "write_file" && r.Summary != "":
		return "Write " + base + "?"
	}
	return "Allow " + termtext.OneLine(r.Tool) + "?"
}

// riskColour is the colour of the frame and the title: a command (it can
// do anything the sandbox lets it) in the error colour, a write in the
// warning colour.
func riskColour(th *theme.Theme, r Risk) color.Color {
	if r == RiskExec {
		return th.Error
	}
	return th.Warn
}

// extraArgLines are a command's arguments besides the command itself
// ("timeout_sec  120"), one a line; the command is shown once, above. Raw
// arguments that are not a JSON object are shown whole: what the model
// sent is never hidden.
func (m *Model) extraArgLines(args string, cw int) []string {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		return append([]string{"", m.th.Dim.Render("arguments")}, m.argLines(args, cw)...)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if k != "command" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	w := 0
	for _, k := range keys {
		w = max(w, len(termtext.OneLine(k)))
	}
	lines := []string{""}
	for _, k := range keys {
		label := fmt.Sprintf("%-*s  ", w, termtext.OneLine(k))
		for i, l := range textutil.Wrap(termtext.VisibleSpaced(string(obj[k])), max(1, cw-len(label))) {
			lead := strings.Repeat(" ", len(label))
			if i == 0 {
				lead = m.th.Dim.Render(label)
			}
			lines = append(lines, lead+m.th.Text.Render(l))
		}
	}
	return lines
}
