package tui

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// attachMax bounds how much of one attached file goes into the message.
const attachMax = 64 << 10

// withAttachments appends the files attached with @ to the message: each
// one's content, read beneath the workspace (the service redacts the whole
// message before the model or the journal sees it).
func withAttachments(workspace, text string, paths []string) string {
	if len(paths) == 0 {
		return text
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return text
	}
	defer root.Close()
	var b strings.Builder
	b.WriteString(text)
	for _, p := range paths {
		f, err := root.Open(p)
		if err != nil {
			fmt.Fprintf(&b, "\n\n[attached %s: not readable: %v]", p, err)
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, attachMax+1))
		f.Close()
		if err != nil {
			fmt.Fprintf(&b, "\n\n[attached %s: not readable: %v]", p, err)
			continue
		}
		if binary(data) {
			fmt.Fprintf(&b, "\n\n[attached %s: a binary file, not attached]", p)
			continue
		}
		cut := ""
		if len(data) > attachMax {
			data, cut = data[:attachMax], fmt.Sprintf(" (first %d KiB; read_file shows the rest)", attachMax>>10)
		}
		fmt.Fprintf(&b, "\n\n[attached %s%s]\n%s", p, cut, strings.TrimRight(string(data), "\n"))
	}
	return b.String()
}

// binary reports content that is not text: a NUL byte, or bytes that are
// not UTF-8, in its first 8 KiB (a multi-byte rune cut at the end is text).
func binary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	if strings.IndexByte(string(head), 0) >= 0 {
		return true
	}
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n <= 1 {
			return len(head) >= utf8.UTFMax // a rune cut by the 8 KiB window is fine
		}
		head = head[n:]
	}
	return false
}
