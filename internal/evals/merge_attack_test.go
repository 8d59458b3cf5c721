package evals

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeReport writes v as a report file and returns its path.
func writeReport(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// A hostile report claims to be shard 1 of MaxInt: naming the missing
// shards must not try to list (or allocate) all of them.
func TestMergeHugeShardCount(t *testing.T) {
	for _, n := range []int{math.MaxInt, 1 << 40} {
		rep := NewReport([]Result{{Name: "a", Failures: []string{}}}, false, Shard{})
		rep.Shard, rep.Suite = "1/"+strconv.Itoa(n), []string{"a"}
		p, err := LoadShardReport(writeReport(t, rep))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := Merge([]ShardReport{p}); done <- err }()
		select {
		case err := <-done:
			var me *MergeError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "missing") || len(err.Error()) > 500 {
				t.Errorf("shard 1/%d alone: %v, want a short MergeError naming missing shards", n, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Merge of a shard 1/%d report did not return in 10s", n)
		}
	}
}

// A report file far larger than any report agent eval writes is refused
// without reading it all into memory.
func TestLoadShardReportTooLarge(t *testing.T) {
	f := filepath.Join(t.TempDir(), "huge.json")
	fh, err := os.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(1 << 40); err != nil { // sparse: 1 TiB of nothing
		t.Skipf("no sparse file here: %v", err)
	}
	fh.Close()
	_, err = LoadShardReport(f)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a 1 TiB report: %v, want refused as larger than a report", err)
	}
}

// Figures no report of agent eval holds (negative, or summing past what
// JSON can carry) are refused by merge, naming the file, rather than a
// summary of garbage or a failure to print it.
func TestMergeRefusesImpossibleFigures(t *testing.T) {
	for name, mut := range map[string]func(*Result){
		"negative seconds": func(r *Result) { r.Seconds = -1 },
		"negative steps":   func(r *Result) { r.Steps = -5 },
		"huge seconds":     func(r *Result) { r.Seconds = math.MaxFloat64 },
		"huge cost":        func(r *Result) { c := math.MaxFloat64; r.CostUSD = &c },
	} {
		var rs []Result
		for _, n := range []string{"a", "b"} {
			r := Result{Name: n, Failures: []string{}}
			mut(&r)
			rs = append(rs, r)
		}
		rep := NewReport(rs, false, Shard{})
		rep.Shard, rep.Suite, rep.Summary = "1/1", []string{"a", "b"}, Summary{}
		f := writeReport(t, rep)
		p, err := LoadShardReport(f)
		if err == nil {
			var out Report
			out, err = Merge([]ShardReport{p})
			if err == nil {
				if _, jerr := json.Marshal(out); jerr != nil {
					t.Errorf("%s: merged, but the report cannot be written: %v", name, jerr)
					continue
				}
			}
		}
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: %v, want refused naming %s", name, err, f)
		}
	}
}
