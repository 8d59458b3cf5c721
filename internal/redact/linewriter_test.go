package redact

import (
	"bytes"
	"strings"
	"testing"
)

// A line writer shows each complete line of prose at once, however short
// (a command printing a line a second), and holds the line still being
// written; a secret arriving over several writes never shows in part.
func TestLineWriterShowsCompleteLines(t *testing.T) {
	r := New(Config{Key: testKey})
	var out bytes.Buffer
	w := r.NewLineWriter(&out)
	for i, l := range []string{"line-1\n", "line-2\n", "ok  \tagent/internal/tui\t7.8s\n"} {
		w.Write([]byte(l))
		if !strings.HasSuffix(out.String(), l) {
			t.Fatalf("after line %d the output is %q: the complete line is held back", i+1, out.String())
		}
	}
	w.Write([]byte("partial line"))
	if strings.Contains(out.String(), "partial") {
		t.Fatalf("a line still being written was shown: %q", out.String())
	}
	w.Write([]byte(" ends\n"))
	if !strings.HasSuffix(out.String(), "partial line ends\n") {
		t.Fatalf("the line, once complete, is not shown: %q", out.String())
	}

	// a key arriving a few bytes at a time, its line completed, then more
	key := "sk-proj-Zq8vLm3pXr7tNw2kQ9sB4yHc6jFd1gRa5eUo0iPl2mKn7bVx"
	doc := "export OPENAI_API_KEY=" + key + "\nnext line\n"
	for i := 0; i < len(doc); i += 3 {
		w.Write([]byte(doc[i:min(i+3, len(doc))]))
		if s := out.String(); strings.Contains(s, "Zq8vLm3p") {
			t.Fatalf("part of the key was shown after %d bytes: %q", i+3, tail(s))
		}
	}
	w.Close()
	if s := out.String(); strings.Contains(s, key[8:20]) || !strings.Contains(s, "[REDACTED:") || !strings.HasSuffix(s, "next line\n") {
		t.Fatalf("the key's line is not redacted as a whole: %q", tail(s))
	}
}

// An open private key block holds the stream, line by line as it comes,
// until it ends: no base64 line of it shows.
func TestLineWriterHoldsPEMBlock(t *testing.T) {
	r := New(Config{Key: testKey})
	var out bytes.Buffer
	w := r.NewLineWriter(&out)
	w.Write([]byte("before\n-----BEGIN RSA PRIVATE KEY-----\n"))
	body := "MIIEowIBAAKCAQEAq8vLm3pXr7tNw2kQ9sB4yHc6jFd1gRa5eUo0iPl2mKn7bVxZ\n"
	for i := 0; i < 5; i++ {
		w.Write([]byte(body))
		if strings.Contains(out.String(), "MIIEow") {
			t.Fatalf("a line of an open key block was shown: %q", out.String())
		}
	}
	w.Write([]byte("-----END RSA PRIVATE KEY-----\nafter\n"))
	w.Close()
	if s := out.String(); strings.Contains(s, "MIIEow") || !strings.HasPrefix(s, "before\n") || !strings.HasSuffix(s, "after\n") {
		t.Fatalf("the key block is not redacted: %q", s)
	}
}
