package evals

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
)

// ShardReport is one --shard report read from its file, for Merge.
type ShardReport struct {
	File   string
	Report Report
	Shard  Shard
}

// LoadShardReport reads an `agent eval --shard I/N --json` report; a report
// without its shard identity (an unsharded or older report) is an error
// that says how to write one.
func LoadShardReport(file string) (ShardReport, error) {
	b, err := readReport(file)
	if err != nil {
		return ShardReport{}, &TaskError{File: file, Msg: "cannot read the report (give files written by agent eval --shard I/N --json)", Err: err}
	}
	if len(b) > maxReportSize {
		return ShardReport{}, &TaskError{File: file, Msg: fmt.Sprintf("larger than %d MiB, far beyond any report agent eval writes: give the --json report of a --shard I/N run", maxReportSize>>20)}
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return ShardReport{}, &TaskError{File: file, Msg: "not an agent eval --json report (write one with agent eval --shard I/N --json > FILE)", Err: err}
	}
	if r.Shard == "" || len(r.Suite) == 0 {
		return ShardReport{}, &TaskError{File: file, Msg: "not a shard's report: it names no shard and suite (write each with agent eval --shard I/N --json > FILE)"}
	}
	s, err := ParseShard(r.Shard)
	if err != nil {
		return ShardReport{}, &TaskError{File: file, Msg: "its shard is not I/N", Err: err}
	}
	for _, t := range r.Tasks {
		if msg := impossible(t); msg != "" {
			return ShardReport{}, &TaskError{File: file, Msg: fmt.Sprintf("task %q: %s, which no agent eval report holds: was it edited by hand?", t.Name, msg)}
		}
	}
	return ShardReport{File: file, Report: r, Shard: s}, nil
}

// maxReportSize bounds a report file merge reads: a report of ten thousand
// tasks is a few MiB.
const maxReportSize = 64 << 20

// readReport reads at most maxReportSize+1 bytes of file (a hostile
// "report" may be endless, like /dev/zero).
func readReport(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxReportSize+1))
}

// impossible says what figure of a task no run can have measured: a
// negative count, or a time, cost or ratio that is negative or too large
// to sum.
func impossible(t Result) string {
	for name, v := range map[string]int{"steps": t.Steps, "tool_calls": t.ToolCalls, "tokens.input": t.Tokens.Input, "tokens.output": t.Tokens.Output,
		"permission_requests": t.PermissionRequests, "repeated_errors": t.RepeatedErrors, "diff_lines": t.DiffLines} {
		if v < 0 || v > maxFigure {
			return fmt.Sprintf("%s is %d", name, v)
		}
	}
	floats := map[string]*float64{"seconds": &t.Seconds, "cost_usd": t.CostUSD, "diff_minimality": t.DiffMinimality}
	for name, v := range floats {
		if v != nil && (*v < 0 || *v > maxFigure || math.IsNaN(*v)) {
			return fmt.Sprintf("%s is %g", name, *v)
		}
	}
	return ""
}

// maxFigure bounds every figure of a task: far above any real one, low
// enough that a suite's sum stays exact in JSON.
const maxFigure = 1 << 40

// maxNamed is how many missing shards a MergeError names.
const maxNamed = 10

// MergeError is why shard reports cannot be merged.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

// Merge combines the reports of shards 1..N of one suite into the report an
// unsharded run would have printed (the same tasks, in name order, and the
// summary over them). The order of parts does not matter. It refuses a shard
// given twice, shards of different suites or counts, a shard whose tasks are
// not its share of the suite, a task in two shards, and a missing shard.
func Merge(parts []ShardReport) (Report, error) {
	if len(parts) == 0 {
		return Report{}, &MergeError{"no reports to merge (give the --json reports of every --shard I/N run)"}
	}
	first := parts[0]
	suite := slices.Sorted(slices.Values(first.Report.Suite))
	seen := map[int]string{}
	owner := map[string]string{}
	var all []Result
	for _, p := range parts {
		switch {
		case p.Shard.N != first.Shard.N:
			return Report{}, &MergeError{fmt.Sprintf("%s is shard %s but %s is of %d shards: merge the reports of one sharded run", p.File, p.Report.Shard, first.File, first.Shard.N)}
		case p.Report.Live != first.Report.Live:
			return Report{}, &MergeError{fmt.Sprintf("%s and %s mix a --live run with a replay: merge the reports of one run", p.File, first.File)}
		case !slices.Equal(slices.Sorted(slices.Values(p.Report.Suite)), suite):
			return Report{}, &MergeError{fmt.Sprintf("%s and %s were cut from different suites: merge the shards of one suite", p.File, first.File)}
		}
		if f, dup := seen[p.Shard.I]; dup {
			return Report{}, &MergeError{fmt.Sprintf("shard %s is given twice (%s and %s): give each shard once", p.Report.Shard, f, p.File)}
		}
		seen[p.Shard.I] = p.File
		want := p.Shard.Select(suite)
		var got []string
		for _, t := range p.Report.Tasks {
			if f, dup := owner[t.Name]; dup {
				return Report{}, &MergeError{fmt.Sprintf("task %s is in %s and %s: the shards overlap", t.Name, f, p.File)}
			}
			owner[t.Name] = p.File
			got = append(got, t.Name)
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			return Report{}, &MergeError{fmt.Sprintf("%s (shard %s) holds %d tasks, not its share of the suite (%d tasks): was it cut or edited by hand?", p.File, p.Report.Shard, len(got), len(want))}
		}
		all = append(all, p.Report.Tasks...)
	}
	if n := first.Shard.N - len(seen); n > 0 {
		// name the first few only: a report may claim any count of shards
		var missing []string
		for i := 1; len(missing) < min(n, maxNamed); i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, first.Shard.N))
			}
		}
		if n > maxNamed {
			missing = append(missing, fmt.Sprintf("and %d more", n-maxNamed))
		}
		return Report{}, &MergeError{fmt.Sprintf("shard %s missing: give the reports of all %d shards", strings.Join(missing, ", "), first.Shard.N)}
	}
	return NewReport(all, first.Report.Live, Shard{}), nil
}
