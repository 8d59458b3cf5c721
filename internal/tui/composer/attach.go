package composer

import (
	"slices"
	"strings"
	"unicode"
)

// attachments are the files the text (as displayed: a folded paste's
// content attaches nothing) attaches: each @PATH at the start or after
// whitespace, that was chosen from the completion or is in the file list,
// in order, once each. Trailing punctuation after a path is not part of it.
func (m Model) attachments(text string) []string {
	type at struct {
		i int
		p string
	}
	var found []at
	for _, w := range atWords(text) {
		p := w.word
		for p != "" && !m.isAttachable(p) {
			if !strings.ContainsRune(".,;:!?)]}'\"", rune(p[len(p)-1])) {
				p = ""
				break
			}
			p = p[:len(p)-1]
		}
		if p != "" {
			found = append(found, at{w.i, p})
		}
	}
	// A chosen path with a space in it is not one word.
	for _, p := range m.accepted {
		if !strings.ContainsFunc(p, unicode.IsSpace) {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], "@"+p)
			if j < 0 {
				break
			}
			i += j
			if i == 0 || unicode.IsSpace(rune(text[i-1])) {
				found = append(found, at{i, p})
			}
			i++
		}
	}
	slices.SortStableFunc(found, func(a, b at) int { return a.i - b.i })
	var out []string
	for _, f := range found {
		if !slices.Contains(out, f.p) {
			out = append(out, f.p)
		}
	}
	return out
}

func (m Model) isAttachable(p string) bool {
	return slices.Contains(m.accepted, p) || m.files.has(p)
}

type atWord struct {
	i    int
	word string
}

// atWords are the words of text that start with '@' at the start of the
// text or after whitespace (without the '@'), with their offsets.
func atWords(text string) []atWord {
	var out []atWord
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !unicode.IsSpace(rune(text[i-1]))) {
			continue
		}
		j := i + 1
		for j < len(text) && !unicode.IsSpace(rune(text[j])) {
			j++
		}
		if j > i+1 {
			out = append(out, atWord{i, text[i+1 : j]})
		}
		i = j
	}
	return out
}
