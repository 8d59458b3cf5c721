package evals

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"agent/internal/event"
)

// Tokens are token counts.
type Tokens struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// Result is one task's outcome and metrics (the spec's JSON fields).
type Result struct {
	Name        string `json:"name"`
	Category    string `json:"category"`
	Description string `json:"description,omitempty"`
	Passed      bool   `json:"passed"`
	RunID       string `json:"run_id,omitempty"`
	Status      string `json:"status"`
	// Class and Reason are the run's failure diagnosis, when it failed or stopped.
	Class              string   `json:"class"`
	Reason             string   `json:"reason"`
	Model              string   `json:"model,omitempty"`
	Steps              int      `json:"steps"`
	ToolCalls          int      `json:"tool_calls"`
	Tokens             Tokens   `json:"tokens"`
	CostUSD            *float64 `json:"cost_usd,omitempty"`
	Seconds            float64  `json:"seconds"`
	PermissionRequests int      `json:"permission_requests"`
	StoppedAfterDenial *bool    `json:"stopped_after_denial"`
	RepeatedErrors     int      `json:"repeated_errors"`
	EvidenceCited      []string `json:"evidence_cited"`
	DiffLines          int      `json:"diff_lines"`
	DiffMinimality     *float64 `json:"diff_minimality"`
	RollbackOK         *bool    `json:"rollback_ok"`
	Failures           []string `json:"failures"`
	Notes              []string `json:"notes,omitempty"`
}

func (r *Result) fail(format string, a ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, a...))
}

// traceEvent is an event of `agent trace --json`, with the fields the
// metrics read (decoded leniently: newer fields are ignored).
type traceEvent struct {
	Type   event.Type `json:"type"`
	RunID  string     `json:"run_id"`
	Seq    int64      `json:"seq"`
	Model  string     `json:"model"`
	Text   string     `json:"text"`
	CallID string     `json:"call_id"`
	Name   string     `json:"name"`
	// Arguments is a tool_call's; ToolCalls is an assistant_message's list
	// or run_finished's count.
	Arguments    string               `json:"arguments"`
	ToolCalls    json.RawMessage      `json:"tool_calls"`
	Decision     event.Decision       `json:"decision"`
	Source       event.Source         `json:"source"`
	Note         string               `json:"note"`
	CheckpointID string               `json:"checkpoint_id"`
	Kind         event.CheckpointKind `json:"kind"`
	Files        []string             `json:"files"`
	Before       string               `json:"before_checkpoint_id"`
	Status       string               `json:"status"`
	Output       string               `json:"output"`
	Class        event.Class          `json:"class"`
	Message      string               `json:"message"`
	Steps        int                  `json:"steps"`
	Tokens       *Tokens              `json:"tokens"`
	Answer       string               `json:"answer"`
	Failure      *struct {
		Class  event.Class `json:"class"`
		Seq    int64       `json:"seq"`
		Reason string      `json:"reason"`
	} `json:"failure"`
	Interrupted []event.InterruptedCall `json:"interrupted"`
	// ChildRun is a task_started's; ParentRun and ParentCall a child's
	// run_started's.
	ChildRun   string `json:"child_run"`
	ParentRun  string `json:"parent_run"`
	ParentCall string `json:"parent_call"`
}

// outcome is what the journal says of the run as a whole.
type outcome struct {
	status    event.Status
	class     event.Class
	reason    string
	steps     int
	toolCalls int
	tokens    Tokens
	model     string
	answer    string
}

// outcomeOf reads the last run_finished (and the diagnosis: its failure,
// else the last error event of that stretch).
func outcomeOf(evs []traceEvent) outcome {
	var o outcome
	var lastErr *traceEvent
	for i := range evs {
		e := &evs[i]
		switch e.Type {
		case event.RunStarted:
			if o.model == "" {
				o.model = e.Model
			}
		case event.Error:
			lastErr = e
		case event.AssistantMessage:
			if strings.TrimSpace(e.Text) != "" {
				o.answer = e.Text
			}
		case event.RunFinished:
			o.status, o.class, o.reason = event.Status(e.Status), "", ""
			o.steps = e.Steps
			_ = json.Unmarshal(e.ToolCalls, &o.toolCalls)
			if e.Tokens != nil {
				o.tokens = *e.Tokens
			}
			if e.Answer != "" {
				o.answer = e.Answer
			}
			if o.status == event.StatusFailed || o.status == event.StatusStopped {
				switch {
				case e.Failure != nil:
					o.class, o.reason = e.Failure.Class, e.Failure.Reason
				case lastErr != nil:
					o.class, o.reason = lastErr.Class, lastErr.Message
				}
			}
			lastErr = nil
		}
	}
	return o
}

// permissionRequests counts the approvals a person decided, plus a pause
// left undecided.
func permissionRequests(evs []traceEvent, o outcome) int {
	n := 0
	for _, e := range evs {
		if e.Type == event.Approval && e.Source == event.SourceUser {
			n++
		}
	}
	if o.status == event.StatusAwaitingApproval {
		n++
	}
	return n
}

// stoppedAfterDenial: nil when no person denied a call without a note;
// else whether no tool ran after each such denial and the run stopped.
func stoppedAfterDenial(evs []traceEvent, o outcome) *bool {
	denied := false
	ok := true
	for i, e := range evs {
		if e.Type != event.Approval || e.Source != event.SourceUser || e.Decision != event.Deny || e.Note != "" {
			continue
		}
		denied = true
		for _, later := range evs[i+1:] {
			if later.Type == event.ToolCall || later.Type == event.CommandStarted {
				ok = false
			}
			if later.Type == event.RunFinished {
				break
			}
		}
	}
	if !denied {
		return nil
	}
	ok = ok && o.status == event.StatusStopped
	return &ok
}

// repeatedErrors is the most times one identical call (tool and arguments)
// failed.
func repeatedErrors(evs []traceEvent) int {
	calls := map[string]string{}
	count := map[string]int{}
	best := 0
	for _, e := range evs {
		switch e.Type {
		case event.ToolCall:
			calls[e.CallID] = e.Name + "\x00" + canonicalJSON(e.Arguments)
		case event.ToolResult:
			if e.Status != string(event.ResultError) {
				continue
			}
			k, ok := calls[e.CallID]
			if !ok {
				continue
			}
			count[k]++
			best = max(best, count[k])
		}
	}
	return best
}

// canonicalJSON re-encodes JSON arguments so key order and spacing do not
// make two identical calls differ.
func canonicalJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// grepHit is the path of a "path:line:" grep result line.
var grepHit = regexp.MustCompile(`(?m)^([^\s:][^:\n]*):\d+:`)

// readPaths are the workspace paths the run read: read_file's path, and the
// files grep reported.
func readPaths(evs []traceEvent) map[string]bool {
	names := map[string]string{}
	read := map[string]bool{}
	for _, e := range evs {
		switch e.Type {
		case event.ToolCall:
			names[e.CallID] = e.Name
			if e.Name == "read_file" {
				var a struct {
					Path string `json:"path"`
				}
				if json.Unmarshal([]byte(e.Arguments), &a) == nil && a.Path != "" {
					read[path.Clean(strings.TrimPrefix(a.Path, "./"))] = true
				}
			}
		case event.ToolResult:
			if names[e.CallID] == "grep" && e.Status == string(event.ResultOK) {
				for _, m := range grepHit.FindAllStringSubmatch(e.Output, -1) {
					read[path.Clean(strings.TrimPrefix(m[1], "./"))] = true
				}
			}
		}
	}
	return read
}

// evidenceCited lists the paths the run read that its final answer names.
func evidenceCited(evs []traceEvent, answer string) []string {
	out := []string{}
	for p := range readPaths(evs) {
		if p != "." && strings.Contains(answer, p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// minimality is minimal / actual changed lines, at most 1; nil when it says
// nothing (no exact/contains files, or nothing changed).
func minimality(minimal int, ok bool, actual int) *float64 {
	if !ok || actual == 0 {
		return nil
	}
	v := roundTo(math.Min(1, float64(minimal)/float64(actual)), 3)
	return &v
}

func roundTo(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// Summary aggregates a suite's results.
type Summary struct {
	Tasks              int            `json:"tasks"`
	Passed             int            `json:"passed"`
	SuccessRate        float64        `json:"success_rate"`
	Steps              int            `json:"steps"`
	ToolCalls          int            `json:"tool_calls"`
	Tokens             Tokens         `json:"tokens"`
	CostUSD            *float64       `json:"cost_usd,omitempty"`
	Seconds            float64        `json:"seconds"`
	PermissionRequests int            `json:"permission_requests"`
	StoppedAfterDenial *float64       `json:"stopped_after_denial"` // the fraction of tasks with a denial that stopped
	RepeatedErrors     int            `json:"repeated_errors"`      // the worst task's
	EvidenceCited      int            `json:"evidence_cited"`       // paths, over all tasks
	DiffLines          int            `json:"diff_lines"`
	DiffMinimality     *float64       `json:"diff_minimality"` // the mean over tasks that have one
	RollbackOK         *float64       `json:"rollback_ok"`     // the fraction of tasks with a rollback that restored
	ByClass            map[string]int `json:"by_class"`        // runs that failed or stopped, by failure class
}

// Report is the JSON report: every task and the summary.
type Report struct {
	Live  bool   `json:"live"`
	Shard string `json:"shard,omitempty"`
	// Suite names every task of the suite a shard was cut from (sharded
	// reports only), so agent eval merge can tell a missing shard.
	Suite   []string `json:"suite,omitempty"`
	Tasks   []Result `json:"tasks"`
	Summary Summary  `json:"summary"`
}

// Summarize aggregates results.
func Summarize(rs []Result) Summary {
	s := Summary{Tasks: len(rs), ByClass: map[string]int{}}
	var cost float64
	costed := false
	var mins, stops, rolls []float64
	for _, r := range rs {
		if r.Passed {
			s.Passed++
		}
		s.Steps += r.Steps
		s.ToolCalls += r.ToolCalls
		s.Tokens.Input += r.Tokens.Input
		s.Tokens.Output += r.Tokens.Output
		s.Seconds += r.Seconds
		s.PermissionRequests += r.PermissionRequests
		s.RepeatedErrors = max(s.RepeatedErrors, r.RepeatedErrors)
		s.EvidenceCited += len(r.EvidenceCited)
		s.DiffLines += r.DiffLines
		if r.CostUSD != nil {
			cost += *r.CostUSD
			costed = true
		}
		if r.DiffMinimality != nil {
			mins = append(mins, *r.DiffMinimality)
		}
		if r.StoppedAfterDenial != nil {
			stops = append(stops, b2f(*r.StoppedAfterDenial))
		}
		if r.RollbackOK != nil {
			rolls = append(rolls, b2f(*r.RollbackOK))
		}
		if r.Class != "" {
			s.ByClass[r.Class]++
		}
	}
	if s.Tasks > 0 {
		s.SuccessRate = roundTo(float64(s.Passed)/float64(s.Tasks), 4)
	}
	s.Seconds = roundTo(s.Seconds, 2)
	if costed {
		c := roundTo(cost, 6)
		s.CostUSD = &c
	}
	s.DiffMinimality, s.StoppedAfterDenial, s.RollbackOK = mean(mins), mean(stops), mean(rolls)
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mean(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	m := roundTo(sum/float64(len(v)), 3)
	return &m
}

// Classes are the failure classes in report order.
func Classes() []string {
	out := make([]string, len(classes))
	for i, c := range classes {
		out[i] = string(c)
	}
	return slices.Clip(out)
}
