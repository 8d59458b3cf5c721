package redact

import (
	"bytes"
	"testing"
)

// FuzzFind checks that no input panics a detector and that findings are
// well formed: in bounds, sorted, redactions not overlapping, and clean
// input returned as is.
func FuzzFind(f *testing.F) {
	for _, d := range streamDocs() {
		f.Add([]byte(d.doc))
	}
	for _, doc := range lookalikes() {
		f.Add([]byte(doc))
	}
	for _, gens := range allGenerators() { // every kind's shape, once
		s := gens[0]()
		if s.Doc {
			f.Add([]byte(docContexts[1].render(s.Name, s.Value)))
		} else {
			f.Add([]byte(contexts[0].render(s.Name, s.Value)))
		}
	}
	f.Add([]byte("machine h.io\n  login u\n  password "))
	f.Add([]byte("kind: Secret\ndata:\n  a: |\n    "))
	f.Add([]byte(`{"kind": "Secret", "data": {"a": "`))
	f.Add([]byte("curl -u 'a:"))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA"))
	f.Add([]byte(`{"private_key\": \"x`))
	r := New(Config{Key: testKey, PII: true, InternalDomains: []string{"corp.acme.internal"}})
	r.AddKnown("", "known-Secret-123")
	f.Fuzz(func(t *testing.T, b []byte) {
		fs := r.Find(b)
		last := -1
		redactions := 0
		for i, x := range fs {
			if x.Start < 0 || x.End > len(b) || x.Start >= x.End {
				t.Fatalf("bad span %+v for %d bytes", x, len(b))
			}
			if i > 0 && x.Start < fs[i-1].Start {
				t.Fatalf("unsorted %+v", fs)
			}
			if !x.Example {
				if x.Start < last {
					t.Fatalf("overlapping redactions %+v", fs)
				}
				last = x.End
				redactions++
			}
		}
		out := r.RedactBytes(b)
		if redactions == 0 && !bytes.Equal(out, b) {
			t.Fatal("clean input changed")
		}
		if redactions > 0 && !ContainsPlaceholder(string(out)) {
			t.Fatal("redacted output without placeholder")
		}
	})
}
