package composer

import (
	"strings"
	"unicode"
)

// CommandName names a slash command (without its slash). The root model
// executes commands; the composer completes and parses them.
type CommandName string

// The slash commands of the TUI.
const (
	CmdHelp        CommandName = "help"
	CmdContext     CommandName = "context"
	CmdCheckpoints CommandName = "checkpoints"
	CmdRewind      CommandName = "rewind"
	CmdDiff        CommandName = "diff"
	CmdStatus      CommandName = "status"
	CmdModel       CommandName = "model"
	CmdMode        CommandName = "mode"
	CmdApprovals   CommandName = "approvals"
	CmdResume      CommandName = "resume"
	CmdNew         CommandName = "new"
	CmdExport      CommandName = "export"
	CmdQuit        CommandName = "quit"
	CmdCompact     CommandName = "compact"
	CmdBudget      CommandName = "budget"
)

// Command is a slash command the composer offers: its name, other names
// that run it, a hint of its arguments ("" for none) and one line of help.
type Command struct {
	Name    CommandName
	Aliases []string
	Args    string
	Help    string
}

// DefaultCommands is the TUI's slash commands, in the order /help lists
// them.
func DefaultCommands() []Command {
	return []Command{
		{Name: CmdHelp, Help: "keys and commands"},
		{Name: CmdContext, Help: "what the last request sent, layer by layer, and what was cut"},
		{Name: CmdCompact, Help: "compact the context now: older rounds summarised, old tool outputs masked"},
		{Name: CmdRewind, Help: "rewind code, conversation or both to just before one of your messages (esc esc)"},
		{Name: CmdCheckpoints, Help: "checkpoints: preview the diff, roll back code or conversation"},
		{Name: CmdDiff, Help: "the run's changes so far"},
		{Name: CmdStatus, Help: "model, approval mode, tokens, context use, run id"},
		{Name: CmdModel, Args: "[NAME]", Help: "list the provider's models, or switch to NAME (the next request uses it)"},
		{Name: CmdMode, Args: "[MODE]", Help: "approval mode: read-only, plan, ask, auto-edit, full-auto (shift+tab cycles)"},
		{Name: CmdApprovals, Help: "approval mode and this run's grants (revocable)"},
		{Name: CmdBudget, Args: "[tokens|usd|time VALUE]", Help: "the run's budget and spend; raise a limit (a paused run goes on)"},
		{Name: CmdResume, Help: "pick a run of this workspace to resume"},
		{Name: CmdNew, Help: "start a new run"},
		{Name: CmdExport, Args: "[PATH]", Help: "export this run's trace"},
		{Name: CmdQuit, Aliases: []string{"exit"}, Help: "quit (the run stays resumable)"},
	}
}

// Slash is a slash command the person submitted: its canonical name (an
// alias is resolved: "/exit" gives CmdQuit), the name as typed,
// and the rest of the text, trimmed.
type Slash struct {
	Name  CommandName
	Typed string
	Args  string
}

// lookup finds the command named name (or one of its aliases).
func lookup(cmds []Command, name string) (Command, bool) {
	for _, c := range cmds {
		if string(c.Name) == name {
			return c, true
		}
		for _, a := range c.Aliases {
			if a == name {
				return c, true
			}
		}
	}
	return Command{}, false
}

// slashWord splits text starting with '/' into the command word (without
// the slash) and the rest; ok is false when text is not shaped like a
// command.
func slashWord(text string) (word, rest string, ok bool) {
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	body := text[1:]
	i := strings.IndexFunc(body, unicode.IsSpace)
	if i < 0 {
		return body, "", body != ""
	}
	return body[:i], strings.TrimSpace(body[i:]), i > 0
}

// slashItem is one line of the slash popup: the name shown (the alias when
// that is what matched) and what accepting it inserts.
type slashItem struct {
	cmd  Command
	name string
}

// matchCommands filters cmds by query: prefix matches of a name or alias
// first (in the list's order), then fuzzy matches by score.
func matchCommands(cmds []Command, query string) []slashItem {
	var prefix, rest []slashItem
	var restScore []int
	f := newFuzzy(query)
	q := strings.ToLower(query)
	for _, c := range cmds {
		names := append([]string{string(c.Name)}, c.Aliases...)
		found := false
		for _, n := range names {
			if strings.HasPrefix(n, q) {
				prefix = append(prefix, slashItem{cmd: c, name: n})
				found = true
				break
			}
		}
		if found {
			continue
		}
		best, bestName := 0, ""
		for _, n := range names {
			if sc, ok := f.match(n, nil); ok && (bestName == "" || sc > best) {
				best, bestName = sc, n
			}
		}
		if bestName != "" {
			at := len(rest)
			for i, s := range restScore {
				if best > s {
					at = i
					break
				}
			}
			rest = append(rest[:at], append([]slashItem{{cmd: c, name: bestName}}, rest[at:]...)...)
			restScore = append(restScore[:at], append([]int{best}, restScore[at:]...)...)
		}
	}
	return append(prefix, rest...)
}
