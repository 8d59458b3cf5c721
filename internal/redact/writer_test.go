package redact

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// streamDocs returns one document per generator (allGenerators), which
// the tests put after filler so that the writer has already emitted data
// when the secret arrives.
func streamDocs() []struct{ kind, doc, secret string } {
	var out []struct{ kind, doc, secret string }
	gens := allGenerators()
	kinds := make([]string, 0, len(gens))
	for k := range gens {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		for _, gen := range gens[kind] {
			s := gen()
			if s.Doc {
				out = append(out, struct{ kind, doc, secret string }{kind, s.Value, s.Needles[0]})
				continue
			}
			c := contexts[0]
			if s.Multiline {
				c = multilineContexts[0]
			}
			out = append(out, struct{ kind, doc, secret string }{kind, c.render(s.Name, s.Value), c.escape(s.Secret)})
		}
	}
	return out
}

func filler(n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		sb.WriteString("2025-03-14T09:26:53Z INFO worker=7 processed batch of 128 items in 42ms token_count=17\n")
	}
	return sb.String()[:n]
}

// writerKinds are the writers: the batch one (agent redact), the live one
// (text a person watches stream) and the line one (a command's output); both must redact exactly as a
// one-shot Redact does, however the input is split.
var writerKinds = []struct {
	name string
	new  func(*Redactor, io.Writer) *Writer
}{
	{"batch", (*Redactor).NewWriter},
	{"live", (*Redactor).NewLiveWriter},
	{"lines", (*Redactor).NewLineWriter},
}

func writeSplit(t *testing.T, r *Redactor, doc string, cuts ...int) string {
	t.Helper()
	return writeSplitWith(t, r.NewWriter, doc, cuts...)
}

func writeSplitWith(t *testing.T, mk func(io.Writer) *Writer, doc string, cuts ...int) string {
	t.Helper()
	var out bytes.Buffer
	w := mk(&out)
	last := 0
	for _, c := range append(cuts, len(doc)) {
		if _, err := w.Write([]byte(doc[last:c])); err != nil {
			t.Fatal(err)
		}
		last = c
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestWriterSplitEverywhere splits every generated secret at every offset
// across two writes, after enough filler that the writer is mid-stream, and
// requires the same output as redacting the whole document at once.
func TestWriterSplitEverywhere(t *testing.T) {
	r := New(Config{Key: testKey})
	pre := filler(writerTail+writerChunk+777) + "\n" // documents start a line
	splits := 0
	for _, d := range streamDocs() {
		doc := pre + d.doc
		want := r.Redact(doc)
		if strings.Contains(want, d.secret) {
			t.Fatalf("%s: not redacted even in one piece: %q", d.kind, d.doc)
		}
		start := len(pre) + strings.Index(d.doc, d.secret)
		for _, wk := range writerKinds {
			mk := func(w io.Writer) *Writer { return wk.new(r, w) }
			for k := start; k <= start+len(d.secret); k++ {
				splits++
				if got := writeSplitWith(t, mk, doc, k); got != want {
					t.Fatalf("%s writer, %s split at %d of secret: output differs\n got: %q\nwant: %q", wk.name, d.kind, k-start, tail(got), tail(want))
				}
			}
		}
	}
	t.Logf("%d two-write splits, all equal to one-shot redaction", splits)
}

func tail(s string) string { return s[max(0, len(s)-400):] }

// TestWriterSmallWrites feeds documents in tiny and odd-sized writes.
func TestWriterSmallWrites(t *testing.T) {
	r := New(Config{Key: testKey})
	var sb strings.Builder
	for _, d := range streamDocs() {
		sb.WriteString(filler(3000))
		sb.WriteString(d.doc)
	}
	doc := sb.String()
	want := r.Redact(doc)
	for _, wk := range writerKinds {
		mk := func(w io.Writer) *Writer { return wk.new(r, w) }
		for _, size := range []int{1, 7, 64, 1000, 4095, 4097, 12289} {
			var cuts []int
			for c := size; c < len(doc); c += size {
				cuts = append(cuts, c)
			}
			if got := writeSplitWith(t, mk, doc, cuts...); got != want {
				t.Errorf("%s writer, writes of %d bytes: output differs", wk.name, size)
			}
		}
	}
}

// TestWriterLongPEM: a private key far longer than the tail window is held
// until its END marker, whatever the write size.
func TestWriterLongPEM(t *testing.T) {
	r := New(Config{Key: testKey})
	key := pemBlock("PGP PRIVATE KEY BLOCK", 30000, 64)
	doc := filler(20000) + key + "\n" + filler(20000)
	want := r.Redact(doc)
	if strings.Contains(want, "-----BEGIN PGP") {
		t.Fatal("PGP block not redacted")
	}
	for _, size := range []int{100, 4096, 9000} {
		var cuts []int
		for c := size; c < len(doc); c += size {
			cuts = append(cuts, c)
		}
		got := writeSplit(t, r, doc, cuts...)
		if got != want {
			t.Errorf("writes of %d: output differs", size)
		}
		if strings.Contains(got, key[200:260]) {
			t.Errorf("writes of %d: key material leaked", size)
		}
	}
}

// TestWriterTruncatedPEM: a key cut off by the end of the stream (head -c)
// is still redacted on Close.
func TestWriterTruncatedPEM(t *testing.T) {
	r := New(Config{Key: testKey})
	key := pemBlock("OPENSSH PRIVATE KEY", 2000, 70)
	doc := filler(15000) + key[:1500]
	got := writeSplit(t, r, doc, 9000, 15500)
	if strings.Contains(got, key[300:360]) || !strings.Contains(got, "[REDACTED:private-key:") {
		t.Errorf("truncated key leaked: %q", tail(got))
	}
}

// TestWriterPEMConstantDoesNotHold: a BEGIN line inside a string constant
// does not hold the stream back.
func TestWriterPEMConstantDoesNotHold(t *testing.T) {
	r := New(Config{Key: testKey})
	var out bytes.Buffer
	w := r.NewWriter(&out)
	w.Write([]byte(`const hdr = "-----BEGIN RSA PRIVATE KEY-----"` + "\n" + filler(40000)))
	if out.Len() < 20000 {
		t.Errorf("only %d bytes emitted before Close", out.Len())
	}
	w.Close()
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterErrors(t *testing.T) {
	r := New(Config{Key: testKey})
	w := r.NewWriter(failWriter{})
	if _, err := w.Write([]byte(filler(64 << 10))); err == nil {
		t.Error("want the underlying error")
	}
	w2 := r.NewWriter(&bytes.Buffer{})
	w2.Close()
	if _, err := w2.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
}

// TestWriterLongToken: a token longer than the tail window (a JWT with a
// big payload) that straddles a scan boundary is held back whole.
func TestWriterLongToken(t *testing.T) {
	r := New(Config{Key: testKey})
	enc := func(b []byte) string {
		return strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(b64(b)), "=")
	}
	jwt := enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc(append([]byte(`{"claims":"`), rbytes(9000)...)) + "." + enc(rbytes(256))
	doc := filler(15000) + "Authorization: Bearer " + jwt + "\n" + filler(15000)
	want := r.Redact(doc)
	if strings.Contains(want, jwt[100:200]) {
		t.Fatal("long JWT not redacted in one piece")
	}
	for _, size := range []int{1000, 3000, 5000} {
		var cuts []int
		for c := size; c < len(doc); c += size {
			cuts = append(cuts, c)
		}
		if got := writeSplit(t, r, doc, cuts...); got != want {
			t.Errorf("writes of %d: output differs", size)
		}
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// A live writer shows text as it arrives: prose written in model-sized
// pieces is held back by at most liveTail bytes plus the word still being
// written, never by the batch writer's 12 KiB.
func TestLiveWriterShowsTextPromptly(t *testing.T) {
	r := New(Config{Key: testKey})
	var out bytes.Buffer
	w := r.NewLiveWriter(&out)
	prose := strings.Repeat("The loop stops before the last element, so the sum misses it. ", 60)
	for i := 0; i < len(prose); i += 7 {
		w.Write([]byte(prose[i:min(i+7, len(prose))]))
		if held := i + 7 - out.Len(); i > 2*liveTail && held > liveTail+liveChunk+16 {
			t.Fatalf("after %d bytes, %d are held back", i+7, held)
		}
	}
	w.Close()
	if out.String() != prose {
		t.Fatal("the live writer changed prose")
	}
	// A line with an open double quote waits for it to close.
	out.Reset()
	w = r.NewLiveWriter(&out)
	w.Write([]byte(prose[:600] + "\nadmin password = \"tldVaOth"))
	if strings.Contains(out.String(), "tldVa") || strings.Contains(out.String(), "admin password") {
		t.Fatalf("part of a quoted value under a keyword was shown: %q", tail(out.String()))
	}
	w.Write([]byte("VBjmqAAmsKpX\"\nmore text follows here to end the line\n"))
	w.Close()
	if strings.Contains(out.String(), "tldVaOth") {
		t.Fatalf("the password was shown: %q", tail(out.String()))
	}
}
