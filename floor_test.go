package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestFloorInitialisers guards the process floor without timing it: every
// command of the binary pays for the initializers of every package linked,
// so none of the highlighting or HTML-sanitising packages may do its work
// there. The test binary (it links what the agent links) is run again with
// GODEBUG=inittrace=1 and no test, and the initializers' allocations are
// read from the trace: chroma's lexer and style registries load on first
// use (third_party/chroma), and bluemonday is not linked at all
// (third_party/glamour). See docs/benchmarks.md, "The process floor".
func TestFloorInitialisers(t *testing.T) {
	if os.Getenv("AGENT_FLOOR_CHILD") != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFloorInitialisers$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "AGENT_FLOOR_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	bytes := map[string]int{} // package -> bytes its initializer allocated
	total := 0
	for l := range strings.Lines(string(out)) {
		// init github.com/alecthomas/chroma/v2/lexers @5.0 ms, 1.1 ms clock, 256328 bytes, 1069 allocs
		f := strings.Fields(l)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read the bytes of %q: %v", l, err)
		}
		bytes[f[1]] += n
		total += n
	}
	if len(bytes) < 50 {
		t.Fatalf("only %d init lines in the trace: is GODEBUG=inittrace=1 honoured?\n%s", len(bytes), out)
	}
	for _, pkg := range []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles", "charm.land/glamour/v2/ansi"} {
		if _, ok := bytes[pkg]; !ok {
			t.Errorf("%s has no init line: the guard no longer sees it (renamed? then update the test)", pkg)
		}
	}
	limits := map[string]int{
		// The lexers defined in Go register at init (~250 kB); the ~260
		// embedded XML lexers (2.7 MB) must not.
		"github.com/alecthomas/chroma/v2/lexers": 512 << 10,
		// The embedded styles (1.9 MB) parse on first use.
		"github.com/alecthomas/chroma/v2/styles": 4 << 10,
	}
	for pkg, limit := range limits {
		if n := bytes[pkg]; n > limit {
			t.Errorf("%s's initializer allocates %d bytes (> %d): its registry is built at init again (third_party/chroma's patch lost?)", pkg, n, limit)
		}
	}
	for pkg := range bytes {
		if strings.HasPrefix(pkg, "github.com/microcosm-cc/bluemonday") || strings.HasPrefix(pkg, "github.com/gorilla/css") {
			t.Errorf("%s is linked and initialised in every process: glamour must strip HTML with third_party/glamour's stripHTML", pkg)
		}
	}
	// All initializers together: 7.6 MB before the floor work, 2.6 MB after.
	if limit := 4 << 20; total > limit {
		t.Errorf("the package initializers allocate %d bytes in all (> %d): a heavy initializer came back; GODEBUG=inittrace=1 ./agent version shows which", total, limit)
	}
}
