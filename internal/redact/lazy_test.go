package redact

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEveryPatternCompiles: the patterns are compiled on first use, so a
// pattern that does not compile would panic only when its keyword first
// hits; every one is compiled here.
func TestEveryPatternCompiles(t *testing.T) {
	try := func(name string, get func() *regexp.Regexp) {
		t.Helper()
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("%s: %v", name, p)
			}
		}()
		if get() == nil {
			t.Errorf("%s: nil pattern", name)
		}
	}
	for i, r := range prefixRules {
		try("prefix rule "+r.kind, func() *regexp.Regexp { return prefixCompiled(i).rx })
	}
	for i, r := range ctxRules {
		for j := range r.vals {
			try(fmt.Sprintf("context rule %s, value %d", r.kind, j), func() *regexp.Regexp { return compiledCtxRule(i).vals[j] })
		}
	}
	for i, r := range nearRules {
		try("near rule "+r.kind, func() *regexp.Regexp { return compiledNear(i) })
	}
	for name, get := range map[string]func() *regexp.Regexp{
		"slack token": slackTokenRe, "slack webhook": slackWebhookRe, "anthropic": anthropicRe,
		"openai": openaiRe, "sendgrid": sendgridRe, "nanp": nanpRe,
	} {
		try(name, get)
	}
}

// TestCompiledRulesKeepDefaults: a prefix rule compiled on first use gets
// the same defaults (head, tail, window) the eager table gave it.
func TestCompiledRulesKeepDefaults(t *testing.T) {
	for i, r := range prefixRules {
		c := prefixCompiled(i)
		if c != prefixCompiled(i) {
			t.Fatalf("%s: compiled twice", r.kind)
		}
		if c.head == 0 || c.tail == 0 || c.max == 0 {
			t.Errorf("%s: head %#x tail %#x max %d, want defaults", r.kind, c.head, c.tail, c.max)
		}
		if r.head != 0 && c.head != r.head || r.tail != 0 && c.tail != r.tail || r.max != 0 && c.max != r.max {
			t.Errorf("%s: an explicit head, tail or max was replaced", r.kind)
		}
	}
}

// TestNearRulesFitTheMemo: the scanner keeps one memo per near rule.
func TestNearRulesFitTheMemo(t *testing.T) {
	if len(nearRules) > maxNear {
		t.Fatalf("%d near rules, the scanner's memo holds %d: raise maxNear", len(nearRules), maxNear)
	}
}

// TestInitCompilesNothing: importing the package (every command of the
// binary does) allocates almost nothing; the rules are compiled by the
// first redaction. The test binary is run again with GODEBUG=inittrace=1
// and no test, and the package initializer's allocations are read from
// the trace.
func TestInitCompilesNothing(t *testing.T) {
	if os.Getenv("REDACT_INIT_CHILD") != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestInitCompilesNothing$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "REDACT_INIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	line := ""
	for l := range strings.Lines(string(out)) {
		if strings.HasPrefix(l, "init agent/internal/redact ") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no init line for agent/internal/redact in the trace:\n%s", out)
	}
	// init agent/internal/redact @0.9 ms, 0.01 ms clock, 2312 bytes, 26 allocs
	f := strings.Fields(line)
	var bytes int
	for i := 1; i < len(f); i++ {
		if strings.TrimRight(f[i], ",") == "bytes" {
			bytes, err = strconv.Atoi(f[i-1])
		}
	}
	if err != nil || bytes == 0 && !strings.Contains(line, " 0 bytes") {
		t.Fatalf("cannot read the bytes of %q", line)
	}
	const limit = 64 << 10
	if bytes > limit {
		t.Errorf("the package's initializer allocates %d bytes (> %d): something is compiled at init\n%s", bytes, limit, line)
	}
}
