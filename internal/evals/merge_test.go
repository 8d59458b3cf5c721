package evals

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shardReports cuts results (a suite) into n shard reports as agent eval
// --shard I/N --json writes them, each read back from its file.
func shardReports(t *testing.T, results []Result, n int) []ShardReport {
	t.Helper()
	var suite []string
	byName := map[string]Result{}
	for _, r := range results {
		suite = append(suite, r.Name)
		byName[r.Name] = r
	}
	var out []ShardReport
	for i := 1; i <= n; i++ {
		s := Shard{I: i, N: n}
		var rs []Result
		for _, name := range s.Select(suite) {
			rs = append(rs, byName[name])
		}
		rep := NewReport(rs, false, s)
		rep.Suite = suite
		f := filepath.Join(t.TempDir(), "s.json")
		b, _ := json.Marshal(rep)
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := LoadShardReport(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func suiteResults() []Result {
	return []Result{
		{Name: "a", Passed: true, Steps: 2, ToolCalls: 1, Tokens: Tokens{10, 1}, Seconds: 1.25, DiffMinimality: ptr(0.5), Failures: []string{}},
		{Name: "b", Passed: false, Status: "failed", Class: "tool", Steps: 3, Failures: []string{"x"}, RepeatedErrors: 2},
		{Name: "c", Passed: true, Steps: 1, CostUSD: ptr(0.01), DiffMinimality: ptr(1.0), Failures: []string{}},
		{Name: "d", Passed: true, Steps: 5, RollbackOK: new(bool), Failures: []string{}},
		{Name: "e", Passed: true, Steps: 1, EvidenceCited: []string{"README.md"}, Failures: []string{}},
	}
}

// Merging the shards in any order gives the unsharded report, byte for byte.
func TestMergeEqualsUnsharded(t *testing.T) {
	want, _ := json.Marshal(NewReport(suiteResults(), false, Shard{}))
	parts := shardReports(t, suiteResults(), 3)
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}} {
		var in []ShardReport
		for _, i := range order {
			in = append(in, parts[i])
		}
		rep, err := Merge(in)
		if err != nil {
			t.Fatalf("order %v: %v", order, err)
		}
		if got, _ := json.Marshal(rep); string(got) != string(want) {
			t.Errorf("order %v: merged\n%s\nwant\n%s", order, got, want)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	parts := shardReports(t, suiteResults(), 3)
	other := shardReports(t, suiteResults()[:4], 3)
	two := shardReports(t, suiteResults(), 2)
	overlap := parts[1]
	overlap.Report.Tasks = append(overlap.Report.Tasks, parts[0].Report.Tasks[0])
	for _, c := range []struct {
		name  string
		parts []ShardReport
		want  string
	}{
		{"twice", []ShardReport{parts[0], parts[0], parts[1], parts[2]}, "given twice"},
		{"missing", []ShardReport{parts[2], parts[0]}, "shard 2/3 missing"},
		{"overlap", []ShardReport{parts[0], overlap, parts[2]}, "the shards overlap"},
		{"other suite", []ShardReport{parts[0], other[1], parts[2]}, "different suites"},
		{"other count", []ShardReport{parts[0], two[1]}, "of 3 shards"},
		{"none", nil, "no reports"},
	} {
		if _, err := Merge(c.parts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Merge = %v, want an error saying %q", c.name, err, c.want)
		}
	}
	f := filepath.Join(t.TempDir(), "whole.json")
	b, _ := json.Marshal(NewReport(suiteResults(), false, Shard{}))
	os.WriteFile(f, b, 0o600)
	if _, err := LoadShardReport(f); err == nil || !strings.Contains(err.Error(), "not a shard's report") {
		t.Errorf("an unsharded report: %v", err)
	}
}
