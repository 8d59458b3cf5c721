package tokens

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// TestEmbeddedVocabIsTheModules: the embedded files hold, token for token,
// the vocabularies of the pinned github.com/tiktoken-go/tokenizer (so a
// version bump without `go generate ./internal/tokens/` fails here).
func TestEmbeddedVocabIsTheModules(t *testing.T) {
	for _, e := range []Encoding{O200kBase, Cl100kBase} {
		codec, err := tokenizer.Get(tokenizer.Encoding(e.String()))
		if err != nil {
			t.Fatal(err)
		}
		v, err := vocabs[e]()
		if err != nil {
			t.Fatal(err)
		}
		ids := []uint{0}
		for id := range uint32(len(v.ends)) {
			ids[0] = uint(id)
			want, err := codec.Decode(ids)
			if err != nil || v.token(id) != want {
				t.Fatalf("%v: token %d is %q, the module's %q (%v): run go generate ./internal/tokens/", e, id, v.token(id), want, err)
			}
		}
		if _, err := codec.Decode([]uint{uint(len(v.ends))}); err == nil {
			t.Errorf("%v: the module has more than the %d embedded tokens: run go generate ./internal/tokens/", e, len(v.ends))
		}
	}
}

// TestLoadVocabDamaged: a damaged vocabulary file is refused with an error
// that names the fix, never half loaded.
func TestLoadVocabDamaged(t *testing.T) {
	good := cl100kFile
	n := vocabSizes[Cl100kBase]
	hdr := len(vocabMagic) + 4
	dupe := []byte(good)
	// Give token 1 the length and bytes of token 0 ("!" and "\"" are one byte each).
	dupe[hdr+n+1] = dupe[hdr+n]
	tests := map[string]string{
		"empty":          "",
		"wrong magic":    "tokv2\n" + good[len(vocabMagic):],
		"short header":   good[:len(vocabMagic)+2],
		"wrong count":    vocabMagic + "\x01\x00\x00\x00" + good[hdr:],
		"truncated":      good[:len(good)-1],
		"trailing bytes": good + "x",
		"empty token":    good[:hdr] + "\x00" + good[hdr+1:],
		"duplicate":      string(dupe),
	}
	for name, file := range tests {
		v, err := loadVocab(Cl100kBase, file)
		if err == nil || v != nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "go generate") {
			t.Errorf("%s: loadVocab = %v, %v; want an error naming the fix", name, v != nil, err)
		}
	}
	if _, err := loadVocab(Cl100kBase, good); err != nil {
		t.Errorf("the embedded file: %v", err)
	}
}
