package evals

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func chartLine(t *testing.T, chart, metric string) string {
	t.Helper()
	for _, l := range strings.Split(chart, "\n") {
		if strings.HasPrefix(l, metric+" ") {
			return l
		}
	}
	t.Fatalf("chart has no %q line:\n%s", metric, chart)
	return ""
}

// The chart puts each metric's baseline and present values on one scale
// and marks the change good (+) or bad (-) by the metric's direction.
func TestChart(t *testing.T) {
	base := Summary{Tasks: 4, Passed: 2, SuccessRate: 0.5, Steps: 40, ToolCalls: 20, Tokens: Tokens{1000, 100}, Seconds: 10, RepeatedErrors: 1}
	now := Summary{Tasks: 4, Passed: 4, SuccessRate: 1, Steps: 20, ToolCalls: 20, Tokens: Tokens{1500, 150}, Seconds: 10, RepeatedErrors: 3, DiffMinimality: ptr(0.8)}
	chart := Chart(base, now)

	rate := chartLine(t, chart, "success rate")
	if !strings.Contains(rate, "+ +100%") || !strings.Contains(rate, "0.50") || !strings.Contains(rate, "1.00") {
		t.Errorf("success rate line: %q", rate)
	}
	if strings.Count(rate, "█") != chartWidth+chartWidth/2 {
		t.Errorf("success rate bars: %d full blocks, want %d (20 for 1.00, 10 for 0.50): %q", strings.Count(rate, "█"), chartWidth+chartWidth/2, rate)
	}
	if l := chartLine(t, chart, "steps"); !strings.Contains(l, "+ -50%") {
		t.Errorf("fewer steps is better: %q", l)
	}
	if l := chartLine(t, chart, "tokens"); !strings.Contains(l, "- +50%") {
		t.Errorf("more tokens is worse: %q", l)
	}
	if l := chartLine(t, chart, "tool calls"); !strings.HasSuffix(strings.TrimSpace(l), "=") {
		t.Errorf("unchanged: %q", l)
	}
	if l := chartLine(t, chart, "diff minimality"); !strings.Contains(l, "n/a") {
		t.Errorf("a metric the baseline lacks: %q", l)
	}
	if strings.Contains(chart, "rollback ok") {
		t.Errorf("a metric neither has is left out:\n%s", chart)
	}
	if bar(0, 10) != "·" || bar(5, 0) != "·" || utf8.RuneCountInString(bar(1, 1000)) != 1 {
		t.Errorf("bar edges: %q %q %q", bar(0, 10), bar(5, 0), bar(1, 1000))
	}
}

func sampleReport() Report {
	return NewReport([]Result{
		{Name: "tools/b", Category: "tools", Passed: false, Status: "failed", Class: "tool", Reason: "same edit failed 3 times",
			Failures: []string{"status: the run ended failed, want completed"}},
		{Name: "edit/a", Category: "edit", Passed: true, Status: "completed", Steps: 3, ToolCalls: 2, Tokens: Tokens{100, 10}},
	}, false, Shard{})
}

func TestMarkdownReport(t *testing.T) {
	rep := sampleReport()
	if rep.Tasks[0].Name != "edit/a" {
		t.Fatalf("tasks not in name order: %v", rep.Tasks[0].Name)
	}
	var plain bytes.Buffer
	if err := rep.WriteMarkdown(&plain, nil); err != nil {
		t.Fatal(err)
	}
	md := plain.String()
	for _, want := range []string{"# agent eval report", "1 of 2 tasks passed (50%)", "| success rate | 0.50 |", "| tool | 1 |",
		"| edit/a | pass | completed |", "### tools/b", "Diagnosis: tool: same edit failed 3 times", "- status: the run ended failed"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "baseline") {
		t.Errorf("no baseline given, yet the report has a chart:\n%s", md)
	}

	base := sampleReport()
	base.Tasks[0].Passed, base.Tasks[1].Passed = false, true
	base.Summary = Summarize(base.Tasks)
	var withBase bytes.Buffer
	if err := rep.WriteMarkdown(&withBase, &base); err != nil {
		t.Fatal(err)
	}
	md = withBase.String()
	for _, want := range []string{"## Against the baseline", "```\nmetric", "success rate", "- regressed (passed in the baseline): tools/b", "- fixed (failed in the baseline): edit/a"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown with a baseline lacks %q:\n%s", want, md)
		}
	}
}

// A --json report reads back as a baseline; anything else is refused.
func TestBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "base.json")
	var b bytes.Buffer
	if err := sampleReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, b.Bytes(), 0o644)
	base, err := LoadBaseline(file)
	if err != nil || base.Summary.Tasks != 2 || len(base.Tasks) != 2 {
		t.Fatalf("LoadBaseline = %+v, %v", base, err)
	}
	var raw map[string]any
	json.Unmarshal(b.Bytes(), &raw)
	tasks := raw["tasks"].([]any)
	for _, key := range []string{"name", "category", "passed", "status", "class", "reason", "steps", "tool_calls", "tokens", "seconds",
		"permission_requests", "stopped_after_denial", "repeated_errors", "evidence_cited", "diff_lines", "diff_minimality", "rollback_ok", "failures"} {
		if _, ok := tasks[0].(map[string]any)[key]; !ok {
			t.Errorf("a task lacks the spec's field %q", key)
		}
	}
	for _, key := range []string{"tasks", "passed", "success_rate", "steps", "tool_calls", "tokens", "seconds", "permission_requests", "by_class"} {
		if _, ok := raw["summary"].(map[string]any)[key]; !ok {
			t.Errorf("the summary lacks the spec's field %q", key)
		}
	}
	for _, bad := range []string{`[]`, `{"tasks": []}`, `not json`} {
		os.WriteFile(file, []byte(bad), 0o644)
		if _, err := LoadBaseline(file); err == nil || !strings.Contains(err.Error(), "agent eval --json") {
			t.Errorf("baseline %q: %v", bad, err)
		}
	}
	if _, err := LoadBaseline(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing baseline is accepted")
	}
}
