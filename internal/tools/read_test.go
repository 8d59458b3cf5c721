package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", i, i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	env, ws := newWorkspace(t)
	var ten strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line %d\n", i)
	}
	writeTree(t, ws, map[string]string{
		"ten.txt":      ten.String(),
		"crlf.txt":     "one\r\ntwo\r\n",
		"nonl.txt":     "a\nb",
		"empty.txt":    "",
		"long.txt":     strings.Repeat("x", readMaxLineLen+500) + "\nshort\n",
		".gitignore":   "ignored.txt\n",
		"ignored.txt":  "still readable\n",
		"dir/file.txt": "x\n",
	})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"whole file", map[string]any{"path": "ten.txt"}, numbered(1, 10)},
		{"offset", map[string]any{"path": "ten.txt", "offset": 8}, numbered(8, 10)},
		{"offset and limit", map[string]any{"path": "ten.txt", "offset": 3, "limit": 2},
			numbered(3, 4) + "[lines 3-4 of 10 shown; read on with offset=5]\n"},
		{"limit", map[string]any{"path": "ten.txt", "limit": 1}, numbered(1, 1) + "[lines 1-1 of 10 shown; read on with offset=2]\n"},
		{"crlf shown without CR", map[string]any{"path": "crlf.txt"}, "     1\tone\n     2\ttwo\n"},
		{"no final newline", map[string]any{"path": "nonl.txt"}, "     1\ta\n     2\tb\n"},
		{"empty", map[string]any{"path": "empty.txt"}, "empty.txt: (empty file)"},
		{"ignored file named explicitly", map[string]any{"path": "ignored.txt"}, "     1\tstill readable\n"},
		{"absolute inside", map[string]any{"path": filepath.Join(ws, "dir", "file.txt")}, "     1\tx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCall(t, env, "read_file", tt.args)
			if res.Output != tt.want {
				t.Errorf("got\n%q\nwant\n%q", res.Output, tt.want)
			}
		})
	}

	res := mustCall(t, env, "read_file", map[string]any{"path": "long.txt"})
	first := lines(res.Output)[0]
	if utf8.RuneCountInString(first) > readMaxLineLen+100 || !strings.Contains(first, "[line shortened, 2500 bytes]") {
		t.Errorf("long line not shortened: %d chars, ends %q", len(first), first[len(first)-60:])
	}
	if !strings.Contains(res.Output, "     2\tshort\n") {
		t.Errorf("line after the long one lost: %q", res.Output[len(res.Output)-40:])
	}

	failures := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "missing.txt"}, "missing.txt: file not found"},
		{map[string]any{"path": "dir"}, "dir is a directory; use list_dir"},
		{map[string]any{"path": "ten.txt", "offset": 11}, "offset 11 is past the end of ten.txt (10 lines)"},
	}
	for _, f := range failures {
		res, err := call(t, env, "read_file", f.args)
		if err == nil || !res.IsError || !strings.Contains(res.Output, f.want) {
			t.Errorf("read_file(%v) = %q, %v; want error %q", f.args, res.Output, err, f.want)
		}
	}
}

func TestReadFileBudget(t *testing.T) {
	env, ws := newWorkspace(t)
	line := strings.Repeat("y", 1000)
	writeTree(t, ws, map[string]string{"wide.txt": strings.Repeat(line+"\n", 100)})
	res := mustCall(t, env, "read_file", map[string]any{"path": "wide.txt"})
	if utf8.RuneCountInString(res.Output) > MaxOutput {
		t.Errorf("output has %d characters, over %d", utf8.RuneCountInString(res.Output), MaxOutput)
	}
	m := regexp.MustCompile(`\[lines 1-(\d+) of 100 shown; read on with offset=(\d+)\]`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no continuation note: %q", res.Output[len(res.Output)-100:])
	}
	last, _ := strconv.Atoi(m[1])
	next, _ := strconv.Atoi(m[2])
	if next != last+1 || !strings.Contains(res.Output, fmt.Sprintf("%6d\t%s\n", last, line)) {
		t.Errorf("note %q does not match the lines shown", m[0])
	}
}

func TestReadFileBinary(t *testing.T) {
	env, ws := newWorkspace(t)
	invalid := make([]byte, 4000)
	for i := range invalid {
		invalid[i] = byte(0x80 + i%64) // continuation bytes: invalid UTF-8
	}
	files := map[string][]byte{
		"nul.bin":     append([]byte("text first\n"), 0, 1, 2),
		"invalid.bin": invalid,
		"late_nul.txt": append(
			[]byte(strings.Repeat("a", sniffLen+10)), 0),
		"utf8.txt":   []byte(strings.Repeat("héllo wörld ✓ ", 1000)),
		"latin1.txt": []byte("caf\xe9 is mostly ASCII text with one Latin-1 byte\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, wantBinary := range map[string]bool{"nul.bin": true, "invalid.bin": true, "late_nul.txt": false, "utf8.txt": false, "latin1.txt": false} {
		res := mustCall(t, env, "read_file", map[string]any{"path": name})
		want := fmt.Sprintf("%s: binary file, %d bytes", name, len(files[name]))
		if got := strings.HasPrefix(res.Output, want); got != wantBinary {
			t.Errorf("read_file(%s) binary=%v, want %v: %.80q", name, got, wantBinary, res.Output)
		}
		if wantBinary && strings.Contains(res.Output, "text first") {
			t.Errorf("binary content dumped: %q", res.Output)
		}
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("short string changed: %q", got)
	}
	exact := strings.Repeat("é", 10)
	if got := Truncate(exact, 10); got != exact {
		t.Errorf("string of exactly max runes changed: %q", got)
	}
	note := regexp.MustCompile(`\[\.\.\. (\d+) characters cut \.\.\.\]`)
	inputs := map[string]string{
		"one line":    strings.Repeat("abcdefghij", 10000),
		"many lines":  strings.Repeat("0123456789 line\n", 5000),
		"multibyte":   strings.Repeat("日本語テキスト✓", 8000),
		"head marker": "HEAD" + strings.Repeat("-", 50000) + "TAIL",
	}
	for name, s := range inputs {
		for _, max := range []int{100, 1000, MaxOutput} {
			got := Truncate(s, max)
			n := utf8.RuneCountInString(got)
			if n > max {
				t.Errorf("%s/%d: %d characters, over max", name, max, n)
			}
			m := note.FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("%s/%d: no note in %q", name, max, got)
			}
			cut, _ := strconv.Atoi(m[1])
			kept := n - utf8.RuneCountInString(m[0]) - 2 // the note and its line breaks
			if kept+cut != utf8.RuneCountInString(s) && kept+cut+1 != utf8.RuneCountInString(s) {
				t.Errorf("%s/%d: kept %d + cut %d != %d", name, max, kept, cut, utf8.RuneCountInString(s))
			}
			if !utf8.ValidString(got) {
				t.Errorf("%s/%d: invalid UTF-8", name, max)
			}
			head, tail, _ := strings.Cut(got, m[0])
			if !strings.HasPrefix(s, strings.TrimSuffix(head, "\n")) || !strings.HasSuffix(s, strings.TrimPrefix(tail, "\n")) {
				t.Errorf("%s/%d: head or tail is not the original's", name, max)
			}
		}
	}
	if got := Truncate(inputs["head marker"], 1000); !strings.HasPrefix(got, "HEAD") || !strings.HasSuffix(got, "TAIL") {
		t.Errorf("the ends are not kept: %.20q ... %.20q", got, got[len(got)-20:])
	}
	// Line boundaries are kept when near.
	got := Truncate(inputs["many lines"], 1000)
	for _, l := range lines(got) {
		if l != "0123456789 line" && !note.MatchString(l) {
			t.Errorf("a line was cut: %q", l)
		}
	}
}

func TestKeepBuffer(t *testing.T) {
	b := &keepBuffer{keep: 10}
	for i := 0; i < 100; i++ {
		fmt.Fprintf(b, "%03d|", i)
	}
	if string(b.head) != "000|001|00" {
		t.Errorf("head %q", b.head)
	}
	if len(b.tail) > 20 || !strings.HasSuffix(string(b.tail), "098|099|") {
		t.Errorf("tail %q", b.tail)
	}
	if b.dropped+len(b.head)+len(b.tail) != 400 {
		t.Errorf("dropped %d + kept %d != 400", b.dropped, len(b.head)+len(b.tail))
	}
	out := b.render(1000)
	if !strings.Contains(out, fmt.Sprintf("[... %d characters cut ...]", b.dropped)) {
		t.Errorf("render: %q", out)
	}
}
