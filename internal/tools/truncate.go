package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxOutput is the number of characters of tool output the model sees; longer
// output is cut in the middle by Truncate.
const MaxOutput = 30000

// Truncate returns s unchanged when it has at most max characters (runes);
// otherwise it keeps the beginning and the end and replaces the middle with a
// note such as "[... 12345 characters cut ...]". Cuts fall on line boundaries
// when one is near, so the kept lines stay whole. The result has at most max
// characters when max leaves room for the note.
func Truncate(s string, max int) string { return truncateCut(s, max, 0) }

// truncateCut is Truncate for text of which dropped characters were already
// cut out (they are added to the count in the note).
func truncateCut(s string, max, dropped int) string {
	if max <= 0 {
		max = MaxOutput
	}
	total := utf8.RuneCountInString(s)
	if total <= max && dropped == 0 {
		return s
	}
	if total <= max {
		return s + fmt.Sprintf("\n[... %d characters cut ...]\n", dropped)
	}
	// Reserve room for the note (its digits cannot exceed those of total).
	reserve := len(fmt.Sprintf("\n[... %d characters cut ...]\n", total+dropped))
	keep := max - reserve
	if keep < 2 {
		keep = 2
	}
	headRunes := keep / 2
	tailRunes := keep - headRunes

	head := s[:byteOffset(s, headRunes)]
	tail := s[byteOffset(s, total-tailRunes):]

	// Snap to line boundaries when that loses at most a fifth of each side.
	if i := strings.LastIndexByte(head, '\n'); i >= 0 && len(head)-i <= len(head)/5 {
		head = head[:i+1]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 && i+1 <= len(tail)/5 {
		tail = tail[i+1:]
	}
	cut := total - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail) + dropped
	var b strings.Builder
	b.Grow(len(head) + len(tail) + reserve)
	b.WriteString(head)
	if !strings.HasSuffix(head, "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %d characters cut ...]\n", cut)
	b.WriteString(tail)
	return b.String()
}

// byteOffset returns the byte index of the n-th rune of s.
func byteOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for j := range s {
		if i == n {
			return j
		}
		i++
	}
	return len(s)
}

// sniffLen is how much of a file isBinary looks at.
const sniffLen = 8 << 10

// isBinary reports whether data (a file's beginning) looks binary: a NUL byte
// in the first 8 KiB, or more than 10% of it invalid UTF-8.
func isBinary(data []byte) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	invalid, n := 0, 0
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size == 1 {
			if len(data) < utf8.UTFMax && !utf8.FullRune(data) {
				break // a rune cut by the sniff window
			}
			invalid++
		}
		n++
		data = data[size:]
	}
	return n > 0 && invalid*10 > n
}

// binaryNote is what read_file says instead of dumping a binary file.
func binaryNote(rel string, size int64) string {
	return fmt.Sprintf("%s: binary file, %d bytes (not shown)", rel, size)
}
