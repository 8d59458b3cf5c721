// Command genvocab writes the vocabulary files that package tokens embeds
// (internal/tokens/vocab/*.tokv) from the vocabularies compiled into
// github.com/tiktoken-go/tokenizer. Run it with `go generate ./internal/tokens/`
// after changing that module's version; TestReferenceVocab then checks the
// files token by token against tiktoken itself.
//
// A file is "tokv1\n", the number of tokens N as a little-endian uint32, N
// bytes giving each token's length (1 to 255) in id order, then the tokens'
// bytes in id order. It owns nothing else and touches no other file.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"agent/internal/atomicfile"

	"github.com/tiktoken-go/tokenizer"
)

// sizes are the encodings' ordinary (non-special) token counts.
var sizes = map[tokenizer.Encoding]int{tokenizer.O200kBase: 199_998, tokenizer.Cl100kBase: 100_256}

func main() {
	dir := flag.String("dir", "vocab", "directory to write the .tokv files into")
	flag.Parse()
	for _, enc := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		data, err := encode(enc, sizes[enc])
		if err == nil {
			err = atomicfile.Write(filepath.Join(*dir, string(enc)+".tokv"), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "genvocab: %s: %v\n", enc, err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s (%d tokens, %d bytes)\n", filepath.Join(*dir, string(enc)+".tokv"), sizes[enc], len(data))
	}
}

func encode(enc tokenizer.Encoding, n int) ([]byte, error) {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, err
	}
	var lens, blob bytes.Buffer
	seen := make(map[string]int, n)
	for id := range n {
		tok, err := codec.Decode([]uint{uint(id)})
		if err != nil {
			return nil, fmt.Errorf("token %d: %w", id, err)
		}
		if len(tok) == 0 || len(tok) > 255 {
			return nil, fmt.Errorf("token %d is %d bytes; the format holds 1 to 255", id, len(tok))
		}
		if prev, dup := seen[tok]; dup {
			return nil, fmt.Errorf("tokens %d and %d have the same bytes", prev, id)
		}
		seen[tok] = id
		lens.WriteByte(byte(len(tok)))
		blob.WriteString(tok)
	}
	if _, err := codec.Decode([]uint{uint(n)}); err == nil {
		return nil, fmt.Errorf("the vocabulary has more than %d ordinary tokens", n)
	}
	out := []byte("tokv1\n")
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = append(out, lens.Bytes()...)
	return append(out, blob.Bytes()...), nil
}
