package store

import "bytes"

// dropKey returns the JSON object obj without its top-level member key,
// skipping that member's value without decoding it (a byte scan: the
// value can be megabytes). ok is false when obj is not an object this scan
// can read; obj is then to be decoded as it is.
func dropKey(obj []byte, key string) (out []byte, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	want := []byte(`"` + key + `"`)
	i++
	for {
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == '}' {
			return obj, true // no such member
		}
		kStart := i
		kEnd, ok := skipValue(obj, i)
		if !ok || obj[kStart] != '"' {
			return nil, false
		}
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		vEnd, ok := skipValue(obj, skipSpace(obj, i+1))
		if !ok {
			return nil, false
		}
		next := skipSpace(obj, vEnd)
		if next >= len(obj) || (obj[next] != ',' && obj[next] != '}') {
			return nil, false
		}
		if bytes.Equal(obj[kStart:kEnd], want) {
			var b []byte
			if obj[next] == ',' { // drop `"key": value,`
				b = append(append(b, obj[:kStart]...), obj[next+1:]...)
			} else { // the last member: drop the comma before it, if any
				cut := kStart
				for j := kStart - 1; j >= 0; j-- {
					if obj[j] == ',' {
						cut = j
						break
					}
					if obj[j] == '{' {
						break
					}
				}
				b = append(append(b, obj[:cut]...), obj[next:]...)
			}
			return b, true
		}
		if obj[next] == '}' {
			return obj, true
		}
		i = next + 1
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at i:
// strings with their escapes, objects and arrays by depth, literals to
// the next delimiter.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				j, ok := skipString(b, i)
				if !ok {
					return i, false
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
			j++
		}
		return j, j > i
	}
}

func skipString(b []byte, i int) (int, bool) {
	i++ // the opening quote
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1, true
		}
		i++
	}
	return i, false
}
