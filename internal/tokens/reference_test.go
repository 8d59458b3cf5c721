package tokens

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var corpusOut = flag.String("corpus-out", "", "write the test corpus to this JSON file for scripts/tokens-reference.sh, and compare nothing")

// referenceFile is testdata/reference.json.
type referenceFile struct {
	Reference string                    `json:"reference"`
	Vocab     map[string]referenceVocab `json:"vocab"`
	Items     []referenceItem           `json:"items"`
}

// referenceVocab identifies a vocabulary: its size and the SHA-256 of
// "ID HEX\n" for each ordinary token in id order.
type referenceVocab struct {
	Tokens int    `json:"tokens"`
	SHA256 string `json:"sha256"`
}

type referenceItem struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	Goroot string `json:"goroot,omitempty"`
	O200k  int    `json:"o200k_base"`
	Cl100k int    `json:"cl100k_base"`
}

// corpusRecord is one item as the reference script reads it. Marshalling
// Text turns each invalid UTF-8 byte into U+FFFD: what a provider receives,
// and what Count counts.
type corpusRecord struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	Goroot string `json:"goroot,omitempty"`
	Text   string `json:"text"`
}

func writeCorpus(t *testing.T, path string) {
	var recs []corpusRecord
	for _, it := range buildCorpus() {
		recs = append(recs, corpusRecord{Name: it.Name, SHA256: corpusHash(it.Text), Bytes: len(it.Text), Goroot: it.Goroot, Text: it.Text})
	}
	b, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d items to %s", len(recs), path)
}

func loadReference(t *testing.T) referenceFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatalf("%v (run scripts/tokens-reference.sh)", err)
	}
	var ref referenceFile
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("testdata/reference.json: %v", err)
	}
	return ref
}

// TestReferenceCorpus: Count equals the reference encoder's count
// (testdata/reference.json, from tiktoken itself) on every item of the mixed
// corpus, in both encodings.
func TestReferenceCorpus(t *testing.T) {
	if *corpusOut != "" {
		writeCorpus(t, *corpusOut)
		return
	}
	ref := loadReference(t)
	t.Logf("reference: %s", ref.Reference)
	counters := map[Encoding]*Counter{}
	for _, e := range []Encoding{O200kBase, Cl100kBase} {
		c, err := New(e)
		if err != nil {
			t.Fatal(err)
		}
		counters[e] = c
	}
	corpus := map[string]corpusItem{}
	for _, it := range buildCorpus() {
		corpus[it.Name] = it
	}
	seen := map[string]bool{}
	compared, tokensCompared := 0, 0
	for _, want := range ref.Items {
		seen[want.Name] = true
		t.Run(want.Name, func(t *testing.T) {
			it, ok := corpus[want.Name]
			switch {
			case !ok && want.Goroot != "":
				t.Skipf("GOROOT/%s not readable here", want.Goroot)
			case !ok:
				t.Fatalf("the corpus generator no longer makes %q: run scripts/tokens-reference.sh", want.Name)
			case corpusHash(it.Text) != want.SHA256 && want.Goroot != "":
				t.Skipf("this toolchain's GOROOT/%s differs from the one counted; run scripts/tokens-reference.sh to count it", want.Goroot)
			case corpusHash(it.Text) != want.SHA256:
				t.Fatalf("the generated text of %q changed: run scripts/tokens-reference.sh", want.Name)
			}
			for e, n := range map[Encoding]int{O200kBase: want.O200k, Cl100kBase: want.Cl100k} {
				if got := counters[e].Count(it.Text); got != n {
					t.Errorf("%v: Count = %d, reference %d (%d bytes)", e, got, n, len(it.Text))
				}
			}
			compared++
			tokensCompared += want.O200k
		})
	}
	for name := range corpus {
		if !seen[name] {
			t.Errorf("corpus item %q has no reference count: run scripts/tokens-reference.sh", name)
		}
	}
	t.Logf("%d items compared, %d o200k_base tokens", compared, tokensCompared)
	if compared < len(ref.Items)/2 {
		t.Errorf("only %d of %d reference items could be compared", compared, len(ref.Items))
	}
}

// TestReferenceVocab: the rank tables loaded from the tokenizer module are
// tiktoken's own, token for token.
func TestReferenceVocab(t *testing.T) {
	ref := loadReference(t)
	for _, e := range []Encoding{O200kBase, Cl100kBase} {
		want, ok := ref.Vocab[e.String()]
		if !ok {
			t.Fatalf("reference.json has no vocabulary hash for %v", e)
		}
		v, err := vocabs[e]()
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for id := range uint32(len(v.ends)) {
			tok := v.token(id)
			if r, ok := v.rank(tok); !ok || r != id {
				t.Fatalf("%v: token %d looks up as %d, %v", e, id, r, ok)
			}
			fmt.Fprintf(h, "%d %s\n", id, hex.EncodeToString([]byte(tok)))
		}
		byID := v.ends
		if got := hex.EncodeToString(h.Sum(nil)); len(byID) != want.Tokens || got != want.SHA256 {
			t.Errorf("%v: %d tokens, sha256 %s; reference %d tokens, %s", e, len(byID), got, want.Tokens, want.SHA256)
		}
	}
}

// TestReferenceCorpusCategories: the corpus holds what the acceptance line
// names, so the comparison above cannot pass on a corpus that lost them.
func TestReferenceCorpusCategories(t *testing.T) {
	ref := loadReference(t)
	have := map[string]int{}
	for _, it := range ref.Items {
		cat := it.Name
		if i := strings.IndexByte(cat, '/'); i >= 0 {
			cat = cat[:i]
		}
		have[cat] += it.O200k
	}
	for _, cat := range []string{"goroot", "go", "python", "cjk", "json", "logs", "emoji", "invalid-utf8", "edge", "stress"} {
		if have[cat] < 100 {
			t.Errorf("category %s has %d o200k_base tokens in the reference, want at least 100", cat, have[cat])
		}
	}
}
