package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/termtext"
)

// progress renders events for a person reading stderr.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	inText  bool
	verbose bool
}

func (p *progress) delta(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.verbose {
		return
	}
	p.inText = true
	fmt.Fprint(p.w, termtext.Visible(s))
}

func (p *progress) event(ev event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inText {
		fmt.Fprintln(p.w)
		p.inText = false
	}
	if d, ok := ev.Data.(*event.ContextRefreshData); ok && d.Error == "" {
		return // a routine refresh is for the trace, not the progress of a run
	}
	if line := describe(ev); line != "" {
		fmt.Fprintln(p.w, line)
	}
}

// describe is the one-line human form of an event, shared by progress and
// trace. Every piece of it may come from the model, a command, a file or a
// provider: the line is made visible (termtext.Line) whole, as it holds no
// styling of ours.
func describe(ev event.Event) string {
	return termtext.Line(describeRaw(ev))
}

func describeRaw(ev event.Event) string {
	switch d := ev.Data.(type) {
	case *event.RunStartedData:
		line := fmt.Sprintf("started in %s with %s (approval %s)", d.Workspace, d.Model, d.Approval)
		if d.ParentCheckpoint != "" {
			line += fmt.Sprintf(", forked from run %s at checkpoint %s; its conversation up to there:", d.ParentRun, shortID(d.ParentCheckpoint))
		}
		if d.ParentRun != "" && d.ParentCall != "" {
			line += fmt.Sprintf("; a subagent of run %s (task call %s)", d.ParentRun, d.ParentCall)
		}
		if d.Budget != nil {
			line += ", budget " + budgetText(d.Budget)
		}
		return line
	case *event.UserMessageData:
		return "user: " + oneLine(d.Text, 100)
	case *event.ModelRequestData:
		return fmt.Sprintf("step %d: asking the model (%d tokens of context)%s", d.Step, d.Context.TotalTokens, spentWords(d.Spent))
	case *event.BudgetChangedData:
		return fmt.Sprintf("budget set to %s (was %s) by the %s", budgetText(&d.To), budgetText(d.From), d.Source)
	case *event.AssistantMessageData:
		warn := ""
		if d.UsageWarning != "" {
			warn = "\n  warning: " + d.UsageWarning
		}
		if d.Text != "" {
			return "assistant: " + oneLine(d.Text, 160) + warn
		}
		names := make([]string, len(d.ToolCalls))
		for i, c := range d.ToolCalls {
			names[i] = c.Name
		}
		return "assistant: (calls " + strings.Join(names, ", ") + ")" + warn
	case *event.ToolCallData:
		return fmt.Sprintf("→ %s %s [%s] (%s)", d.Name, oneLine(d.Arguments, 120), d.Risk, d.CallID)
	case *event.ApprovalData:
		s := fmt.Sprintf("  %s by %s (%s)", d.Decision, d.Source, d.Scope)
		if d.Rule != "" {
			s += " rule " + d.Rule
		}
		return s
	case *event.CheckpointData:
		return fmt.Sprintf("  checkpoint %s %s (%d files)", shortID(d.CheckpointID), d.Kind, len(d.Files))
	case *event.ToolResultData:
		mark := map[event.ResultStatus]string{event.ResultOK: "✓", event.ResultError: "✗", event.ResultDenied: "⊘", event.ResultInterrupted: "!"}[d.Status]
		status := string(d.Status)
		if d.ExitCode != nil && *d.ExitCode != 0 {
			mark, status = "✗", fmt.Sprintf("exit %d", *d.ExitCode) // a failing command is not "ok" to a person
		}
		line := fmt.Sprintf("  %s %s %s", mark, status, oneLine(d.Output, 120))
		if n := len(d.Background); n > 0 {
			line += fmt.Sprintf(" [%d background process(es) left running]", n)
		}
		return line
	case *event.CommandStartedData:
		if d.PID == 0 {
			return "  started in-process (builtins only: no program runs)"
		}
		return fmt.Sprintf("  started pid %d (process group %d)", d.PID, d.PGID)
	case *event.GrantRevokedData:
		return fmt.Sprintf("grant revoked: %s", d.Rule)
	case *event.ModeChangedData:
		return protocol.ModeChangedLine(d)
	case *event.ModelChangedData:
		return protocol.ModelChangedLine(d)
	case *event.TaskStartedData:
		return taskStartedLine(d)
	case *event.RollbackData:
		return fmt.Sprintf("rollback to %s: %d files (conversation %t)", shortID(d.CheckpointID), len(d.Files), d.Conversation)
	case *event.ResumeData:
		var parts []string
		for _, c := range d.Interrupted {
			part := c.CallID + " " + string(c.Action)
			if p := c.Processes; p != nil {
				part += " (" + processSummary(*p) + ")"
			}
			parts = append(parts, part)
		}
		for _, p := range d.Leftovers {
			parts = append(parts, "leftovers of "+p.CallID+" ("+processSummary(p)+")")
		}
		return fmt.Sprintf("resumed after seq %d %s", d.FromSeq, strings.Join(parts, ", "))
	case *event.CompactionData:
		return protocol.CompactionLine(d, thousands, "->")
	case *event.ContextRefreshData:
		return refreshLine(d)
	case *event.ErrorData:
		return fmt.Sprintf("error (%s): %s", d.Class, d.Message)
	case *event.RunFinishedData:
		line := fmt.Sprintf("finished: %s after %d steps, %d tool calls, %d+%d tokens", d.Status, d.Steps, d.ToolCalls, d.Tokens.Input, d.Tokens.Output)
		if d.Tokens.CacheRead+d.Tokens.CacheWrite > 0 {
			line += fmt.Sprintf(" (prompt cache: %d read, %d written)", d.Tokens.CacheRead, d.Tokens.CacheWrite)
		}
		for _, p := range d.Ended {
			line += "; stopped what " + p.CallID + " left running (" + processSummary(p) + ")"
		}
		if f := d.Failure; f != nil {
			line += fmt.Sprintf("; %s failure at seq %d: %s", f.Class, f.Seq, f.Reason)
		}
		return line
	}
	return string(ev.Type)
}

// refreshLine is one short line of a refresh of the slow layers.
func refreshLine(d *event.ContextRefreshData) string {
	line := fmt.Sprintf("context refreshed (%s): ", d.Reason)
	if d.Error != "" {
		return line + "no repo map: " + oneLine(d.Error, 120)
	}
	return line + fmt.Sprintf("repo map %d files, %s tokens", len(d.RepoMapFiles), thousands(d.RepoMapTokens))
}

// processSummary says what was found of a command's processes.
func processSummary(p event.ProcessReport) string {
	if p.Action == event.ProcessNoneLeft || len(p.Processes) == 0 {
		return "nothing of it was running"
	}
	names := make([]string, 0, len(p.Processes))
	for _, pr := range p.Processes {
		names = append(names, fmt.Sprintf("%d %s", pr.PID, oneLine(pr.Command, 40)))
	}
	return fmt.Sprintf("%s %d process(es): %s", p.Action, len(p.Processes), strings.Join(names, ", "))
}

// oneLine is s made visible on one line (termtext.OneLine), cut to max
// characters.
func oneLine(s string, max int) string {
	s = termtext.OneLine(s)
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// jsonLines writes each event as one JSON object a line.
type jsonLines struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

func newJSONLines(w io.Writer) *jsonLines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonLines{enc: enc}
}

func (j *jsonLines) event(ev event.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.enc.Encode(ev); err != nil && j.err == nil {
		j.err = err
	}
}
