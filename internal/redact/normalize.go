package redact

import "bytes"

// Redaction sees what a person would see: colour codes between a key and
// its value (grep --color=always, jq -C) and JSON string escapes
// (https:\/\/hooks..., \u0022, \") hide a secret from detectors that read
// the raw bytes. When a buffer holds an escape character, a "\/" or a
// "\u00", the detectors also run on a normalised copy (terminal escape
// sequences removed, JSON escapes decoded) and what they find there is
// mapped back to the original bytes, so that it is replaced in place.
// Text without those marks is scanned once, as before.

// needsNormalise reports whether b holds anything normalise would change
// that matters to detection: an ESC, "\/", "\u00" or a percent-encoded
// slash.
func needsNormalise(b []byte) bool {
	if bytes.IndexByte(b, 0x1b) >= 0 || bytes.Contains(b, []byte("%2F")) || bytes.Contains(b, []byte("%2f")) {
		return true
	}
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 {
			return false
		}
		i += k + 1
		if i < len(b) && (b[i] == '/' || b[i] == 'u' && hasPrefixAt(b, i+1, "00")) {
			return true
		}
	}
}

// normalised is text with escape sequences removed and JSON escapes
// decoded; its byte j came from orig[start[j]:end[j]].
type normalised struct {
	text       []byte
	start, end []int32
}

// normalise removes terminal escape sequences (CSI, OSC, DCS/SOS/PM/APC
// strings and two- and three-byte ESC sequences) and decodes JSON string
// escapes (\" \\ \/ \b \f \n \r \t and \u00XX below 0x80) and the
// percent-encoded URL delimiters (%2F %3A %40 %3D %3F %26 %2B) of b. Other
// backslashes and \u escapes stay as they are: secrets are ASCII.
func normalise(b []byte) normalised {
	n := normalised{
		text:  make([]byte, 0, len(b)),
		start: make([]int32, 0, len(b)),
		end:   make([]int32, 0, len(b)),
	}
	emit := func(c byte, s, e int) {
		n.text = append(n.text, c)
		n.start = append(n.start, int32(s))
		n.end = append(n.end, int32(e))
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case 0x1b:
			i = skipEscape(b, i)
			continue
		case '%':
			if d, ok := percentByte(b, i); ok {
				emit(d, i, i+3)
				i += 3
				continue
			}
		case '\\':
			if i+1 < len(b) {
				if d, l := decodeJSONEscape(b[i:]); l > 0 {
					emit(d, i, i+l)
					i += l
					continue
				}
			}
		}
		emit(c, i, i+1)
		i++
	}
	return n
}

// decodeJSONEscape decodes the JSON escape at the start of v ("\/", "\u0041"),
// returning the byte and the escape's length, or 0 when v does not start
// with one that decodes to a single ASCII byte.
func decodeJSONEscape(v []byte) (byte, int) {
	switch v[1] {
	case '"', '\\', '/':
		return v[1], 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		if len(v) >= 6 && v[2] == '0' && v[3] == '0' && '0' <= v[4] && v[4] <= '7' {
			if lo, ok := hexVal(v[5]); ok {
				return (v[4]-'0')<<4 | lo, 6
			}
		}
	}
	return 0, 0
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// maxEscapeString bounds how far an OSC or DCS string is followed looking
// for its terminator; an unterminated one ends at the next newline.
const maxEscapeString = 4096

// skipEscape returns the index just after the escape sequence that starts
// with the ESC at b[i] (ECMA-48: CSI "ESC [ params intermediates final",
// OSC/DCS/SOS/PM/APC strings ended by BEL or ESC \, "ESC intermediates
// final"). A lone ESC is skipped by itself.
func skipEscape(b []byte, i int) int {
	j := i + 1
	if j >= len(b) {
		return j
	}
	switch c := b[j]; {
	case c == '[':
		j++
		for j < len(b) && 0x30 <= b[j] && b[j] <= 0x3f {
			j++
		}
		for j < len(b) && 0x20 <= b[j] && b[j] <= 0x2f {
			j++
		}
		if j < len(b) && 0x40 <= b[j] && b[j] <= 0x7e {
			j++
		}
		return j
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		j++
		lim := min(len(b), j+maxEscapeString)
		for ; j < lim; j++ {
			switch b[j] {
			case 0x07:
				return j + 1
			case 0x1b:
				if j+1 < len(b) && b[j+1] == '\\' {
					return j + 2
				}
				return j
			case '\n':
				return j
			}
		}
		return j
	case 0x20 <= c && c <= 0x2f:
		for j < len(b) && 0x20 <= b[j] && b[j] <= 0x2f {
			j++
		}
		if j < len(b) && 0x30 <= b[j] && b[j] <= 0x7e {
			j++
		}
		return j
	case 0x30 <= c && c <= 0x7e:
		return j + 1
	}
	return j
}

// scanAll runs the detectors on b and, when b holds escapes
// (needsNormalise), on its normalised form too, mapping those findings
// back to b. The candidates are unresolved.
func scanAll(e *engine, b []byte) []cand {
	sc := scanner{e: e, b: b}
	sc.run()
	if !needsNormalise(b) {
		return sc.cands
	}
	n := normalise(b)
	if len(n.text) == len(b) && bytes.Equal(n.text, b) {
		return sc.cands
	}
	// JSON inside JSON (a tool's JSON answer quoting a JSON file:
	// https:\\/\\/hooks...) takes one more decoding a level; each level's
	// mapping is composed with the one before, back to b.
	for depth := 1; depth < maxNormaliseDepth && needsNormalise(n.text); depth++ {
		m := normalise(n.text)
		if bytes.Equal(m.text, n.text) {
			break
		}
		for j := range m.text {
			m.start[j], m.end[j] = n.start[m.start[j]], n.end[m.end[j]-1]
		}
		n = m
	}
	ns := scanner{e: e, b: n.text}
	ns.run()
	cands := sc.cands
	for _, c := range ns.cands {
		s, t := n.mapSpan(c.start, c.end)
		if s >= t {
			continue
		}
		secret := n.text[c.start:c.end]
		if bytes.Equal(secret, b[s:t]) {
			secret = nil
		}
		cands = append(cands, cand{start: s, end: t, kind: c.kind, example: c.example, secret: secret})
	}
	return cands
}

// maxNormaliseDepth bounds the levels of escaping undone.
const maxNormaliseDepth = 3

// mapSpan maps text[s:e] to the bytes of the original it came from.
func (n *normalised) mapSpan(s, e int) (int, int) {
	if s >= e || e > len(n.text) {
		return 0, 0
	}
	return int(n.start[s]), int(n.end[e-1])
}

// percentByte decodes the percent-encoded URL delimiter at b[i:], if any.
func percentByte(b []byte, i int) (byte, bool) {
	if i+2 >= len(b) {
		return 0, false
	}
	hi, ok1 := hexVal(b[i+1])
	lo, ok2 := hexVal(b[i+2])
	if !ok1 || !ok2 {
		return 0, false
	}
	switch c := hi<<4 | lo; c {
	case '/', ':', '@', '=', '?', '&', '+':
		return c, true
	}
	return 0, false
}
