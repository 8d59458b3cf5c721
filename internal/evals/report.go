package evals

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// NewReport builds the report of results (in name order).
func NewReport(rs []Result, live bool, shard Shard) Report {
	sorted := append([]Result(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for i := range sorted {
		if sorted[i].Failures == nil {
			sorted[i].Failures = []string{}
		}
		if sorted[i].EvidenceCited == nil {
			sorted[i].EvidenceCited = []string{}
		}
	}
	r := Report{Live: live, Tasks: sorted, Summary: Summarize(sorted)}
	if shard.N > 0 {
		r.Shard = fmt.Sprintf("%d/%d", shard.I, shard.N)
	}
	return r
}

// WriteJSON writes the report as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// LoadBaseline reads a previous --json report.
func LoadBaseline(file string) (*Report, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, &TaskError{File: file, Msg: "cannot read the baseline (give a file written by agent eval --json)", Err: err}
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil || r.Summary.Tasks == 0 {
		return nil, &TaskError{File: file, Msg: "not an agent eval --json report with tasks (write one with agent eval --json > FILE)", Err: err}
	}
	return &r, nil
}

// metric is one charted summary figure.
type metric struct {
	name   string
	better int // +1 higher is better, -1 lower is better
	format string
	value  func(Summary) (float64, bool)
}

func always(f func(Summary) float64) func(Summary) (float64, bool) {
	return func(s Summary) (float64, bool) { return f(s), true }
}

func optional(f func(Summary) *float64) func(Summary) (float64, bool) {
	return func(s Summary) (float64, bool) {
		if v := f(s); v != nil {
			return *v, true
		}
		return 0, false
	}
}

var metrics = []metric{
	{"success rate", +1, "%.2f", always(func(s Summary) float64 { return s.SuccessRate })},
	{"steps", -1, "%.0f", always(func(s Summary) float64 { return float64(s.Steps) })},
	{"tool calls", -1, "%.0f", always(func(s Summary) float64 { return float64(s.ToolCalls) })},
	{"tokens", -1, "%.0f", always(func(s Summary) float64 { return float64(s.Tokens.Input + s.Tokens.Output) })},
	{"seconds", -1, "%.1f", always(func(s Summary) float64 { return s.Seconds })},
	{"permission requests", -1, "%.0f", always(func(s Summary) float64 { return float64(s.PermissionRequests) })},
	{"stopped after denial", +1, "%.2f", optional(func(s Summary) *float64 { return s.StoppedAfterDenial })},
	{"repeated errors", -1, "%.0f", always(func(s Summary) float64 { return float64(s.RepeatedErrors) })},
	{"evidence cited", +1, "%.0f", always(func(s Summary) float64 { return float64(s.EvidenceCited) })},
	{"diff minimality", +1, "%.2f", optional(func(s Summary) *float64 { return s.DiffMinimality })},
	{"rollback ok", +1, "%.2f", optional(func(s Summary) *float64 { return s.RollbackOK })},
	{"cost usd", -1, "%.4f", optional(func(s Summary) *float64 { return s.CostUSD })},
}

// chartWidth is the width of the longest bar, in cells.
const chartWidth = 20

// bar draws v of a scale of top in chartWidth cells (eighths of a block).
func bar(v, top float64) string {
	if top <= 0 || v <= 0 {
		return "·"
	}
	eighths := int(math.Round(v / top * chartWidth * 8))
	s := strings.Repeat("█", eighths/8)
	if rem := eighths % 8; rem > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[rem-1])
	}
	if s == "" {
		s = "▏"
	}
	return s
}

// Chart draws each metric of now against base: two bars on one scale, the
// values and the change, marked + when it got better and - when worse.
func Chart(base, now Summary) string {
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 4, 1, ' ', 0)
	fmt.Fprintf(tw, "metric\tbaseline\t\tnow\t\tchange\n")
	for _, m := range metrics {
		b, okb := m.value(base)
		n, okn := m.value(now)
		if !okb && !okn {
			continue
		}
		top := math.Max(b, n)
		cell := func(v float64, ok bool) (string, string) {
			if !ok {
				return "n/a", ""
			}
			return fmt.Sprintf(m.format, v), bar(v, top)
		}
		bv, bb := cell(b, okb)
		nv, nb := cell(n, okn)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.name, bv, bb, nv, nb, change(m, b, okb, n, okn))
	}
	tw.Flush()
	return sb.String()
}

func change(m metric, b float64, okb bool, n float64, okn bool) string {
	switch {
	case !okb || !okn:
		return ""
	case n == b:
		return "="
	}
	mark := "-"
	if (n > b) == (m.better > 0) {
		mark = "+"
	}
	if b == 0 {
		return fmt.Sprintf("%s (new)", mark)
	}
	return fmt.Sprintf("%s %+.0f%%", mark, (n-b)/math.Abs(b)*100)
}

// Regressions are the tasks that passed in base and fail now, and the
// tasks of base that now pass after failing there (fixed).
func Regressions(base, now Report) (regressed, fixed []string) {
	was := map[string]bool{}
	for _, t := range base.Tasks {
		was[t.Name] = t.Passed
	}
	for _, t := range now.Tasks {
		p, ok := was[t.Name]
		switch {
		case ok && p && !t.Passed:
			regressed = append(regressed, t.Name)
		case ok && !p && t.Passed:
			fixed = append(fixed, t.Name)
		}
	}
	return regressed, fixed
}

// WriteText writes the terminal table: one line per task, then the summary
// and, with a baseline, the chart.
func (r Report) WriteText(w io.Writer, base *Report) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tRESULT\tSTATUS\tCLASS\tSTEPS\tCALLS\tTOKENS\tCOST\tSECONDS\tFIRST FAILURE")
	for _, t := range r.Tasks {
		first := ""
		if len(t.Failures) > 0 {
			first = oneLine(t.Failures[0], 70)
		}
		cost := "-"
		if t.CostUSD != nil {
			cost = fmt.Sprintf("$%.4f", *t.CostUSD)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%.1f\t%s\n", t.Name, passWord(t.Passed), orDash(t.Status), orDash(t.Class),
			t.Steps, t.ToolCalls, t.Tokens.Input+t.Tokens.Output, cost, t.Seconds, first)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	fmt.Fprintf(w, "\n%d of %d tasks passed (%.0f%%); %d steps, %d tool calls, %d tokens, %.1fs, %d permission requests",
		s.Passed, s.Tasks, 100*s.SuccessRate, s.Steps, s.ToolCalls, s.Tokens.Input+s.Tokens.Output, s.Seconds, s.PermissionRequests)
	if s.CostUSD != nil {
		fmt.Fprintf(w, ", $%.4f", *s.CostUSD)
	}
	fmt.Fprintln(w)
	if base != nil {
		fmt.Fprintf(w, "\nagainst the baseline (%d tasks):\n%s", base.Summary.Tasks, Chart(base.Summary, s))
		writeRegressions(w, *base, r, "")
	}
	return nil
}

func writeRegressions(w io.Writer, base, now Report, bullet string) {
	reg, fixed := Regressions(base, now)
	if len(reg) > 0 {
		fmt.Fprintf(w, "%sregressed (passed in the baseline): %s\n", bullet, strings.Join(reg, ", "))
	}
	if len(fixed) > 0 {
		fmt.Fprintf(w, "%sfixed (failed in the baseline): %s\n", bullet, strings.Join(fixed, ", "))
	}
}

func passWord(p bool) string {
	if p {
		return "pass"
	}
	return "FAIL"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtOpt(v *float64, format string) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf(format, *v)
}

func fmtBool(b *bool) string {
	switch {
	case b == nil:
		return "–"
	case *b:
		return "yes"
	}
	return "no"
}

// mdCell escapes a table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// WriteMarkdown writes the report in markdown, with the chart against base
// when given.
func (r Report) WriteMarkdown(w io.Writer, base *Report) error {
	s := r.Summary
	mode := "replay (local server)"
	if r.Live {
		mode = "live (the configured model)"
	}
	fmt.Fprintf(w, "# agent eval report\n\n%d of %d tasks passed (%.0f%%), %s", s.Passed, s.Tasks, 100*s.SuccessRate, mode)
	if r.Shard != "" {
		fmt.Fprintf(w, ", shard %s", r.Shard)
	}
	fmt.Fprint(w, ".\n\n## Summary\n\n| metric | value |\n|---|---|\n")
	rows := [][2]string{
		{"success rate", fmt.Sprintf("%.2f", s.SuccessRate)},
		{"steps", fmt.Sprint(s.Steps)},
		{"tool calls", fmt.Sprint(s.ToolCalls)},
		{"tokens (input / output)", fmt.Sprintf("%d / %d", s.Tokens.Input, s.Tokens.Output)},
		{"seconds", fmt.Sprintf("%.1f", s.Seconds)},
		{"permission requests", fmt.Sprint(s.PermissionRequests)},
		{"stopped after a denial (fraction of tasks with one)", fmtOpt(s.StoppedAfterDenial, "%.2f")},
		{"repeated identical errors (worst task)", fmt.Sprint(s.RepeatedErrors)},
		{"evidence cited (paths)", fmt.Sprint(s.EvidenceCited)},
		{"diff lines", fmt.Sprint(s.DiffLines)},
		{"diff minimality (mean)", fmtOpt(s.DiffMinimality, "%.2f")},
		{"rollback restored (fraction of tasks with one)", fmtOpt(s.RollbackOK, "%.2f")},
	}
	if s.CostUSD != nil {
		rows = append(rows, [2]string{"cost (USD)", fmt.Sprintf("%.4f", *s.CostUSD)})
	}
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1])
	}
	if base != nil {
		fmt.Fprintf(w, "\n## Against the baseline\n\nBaseline: %d tasks, %d passed. `+` better, `-` worse.\n\n```\n%s```\n",
			base.Summary.Tasks, base.Summary.Passed, Chart(base.Summary, s))
		writeRegressions(w, *base, r, "- ")
	}
	fmt.Fprint(w, "\n## Failed or stopped runs by class\n\n| class | runs |\n|---|---|\n")
	for _, c := range Classes() {
		fmt.Fprintf(w, "| %s | %d |\n", c, s.ByClass[c])
	}
	fmt.Fprint(w, "\n## Tasks\n\n| task | result | status | class | steps | calls | tokens | s | perm. | stopped after denial | rep. errors | evidence | diff | minimality | rollback |\n")
	fmt.Fprint(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range r.Tasks {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %d | %d | %.1f | %d | %s | %d | %s | %d | %s | %s |\n",
			mdCell(t.Name), passWord(t.Passed), orDash(t.Status), orDash(t.Class), t.Steps, t.ToolCalls,
			t.Tokens.Input+t.Tokens.Output, t.Seconds, t.PermissionRequests, fmtBool(t.StoppedAfterDenial), t.RepeatedErrors,
			mdCell(orDash(strings.Join(t.EvidenceCited, ", "))), t.DiffLines, fmtOpt(t.DiffMinimality, "%.2f"), fmtBool(t.RollbackOK))
	}
	var failed []Result
	for _, t := range r.Tasks {
		if !t.Passed {
			failed = append(failed, t)
		}
	}
	if len(failed) > 0 {
		fmt.Fprint(w, "\n## Failures\n")
		for _, t := range failed {
			fmt.Fprintf(w, "\n### %s\n\n", t.Name)
			if t.Reason != "" {
				fmt.Fprintf(w, "Diagnosis: %s: %s\n\n", orDash(t.Class), t.Reason)
			}
			for _, f := range t.Failures {
				fmt.Fprintf(w, "- %s\n", f)
			}
		}
	}
	return nil
}
