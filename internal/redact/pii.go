package redact

import (
	"bytes"
)

const cLocal = cAlnum | cDot | cUnder | cDash | cPlus // e-mail local part
const cHost = cAlnum | cDot | cDash

// exampleDomains are reserved for documentation (RFC 2606, RFC 6761).
func exampleDomain(d []byte) bool {
	for _, s := range []string{"example.com", "example.org", "example.net"} {
		if len(d) >= len(s) && hasPrefixFold(d, len(d)-len(s), s) && (len(d) == len(s) || d[len(d)-len(s)-1] == '.') {
			return true
		}
	}
	for _, s := range []string{".example", ".test", ".invalid", ".localhost", ".local"} {
		if len(d) > len(s) && hasPrefixFold(d, len(d)-len(s), s) {
			return true
		}
	}
	return false
}

// email: local@domain.tld (opt-in PII). s is the '@'.
func (sc *scanner) email(s int) {
	b := sc.b
	ls := startOf(b, s, cLocal, 64)
	for ls < s && b[ls] == '.' {
		ls++
	}
	if ls == s || (ls > 0 && (b[ls-1] == ':' || b[ls-1] == '/')) {
		return // @handle, or user:pass@host
	}
	de := spanOf(b, s+1, cHost, 253)
	for de > s+1 && (b[de-1] == '.' || b[de-1] == '-') {
		de--
	}
	d := b[s+1 : de]
	dot := bytes.LastIndexByte(d, '.')
	if dot <= 0 || len(d)-dot-1 < 2 || !all(d[dot+1:], cAlpha) || bytes.Contains(d, []byte("..")) || !is(d[0], cAlnum) {
		return
	}
	if exampleDomain(d) {
		sc.addExample(ls, de, KindEmail)
		return
	}
	sc.add(ls, de, KindEmail)
}

// domain: a hostname equal to or under an internal domain.
func (sc *scanner) domain(s, e int) {
	b := sc.b
	if !boundaryAfter(b, e, cAlnum|cDash) || (e+1 < len(b) && b[e] == '.' && is(b[e+1], cAlnum)) {
		return
	}
	hs := s
	if s > 0 {
		switch c := b[s-1]; {
		case c == '.':
			hs = startOf(b, s, cHost, 253)
			for hs < s && (b[hs] == '.' || b[hs] == '-') {
				hs++
			}
		case is(c, cAlnum|cDash):
			return // notcorp.example.com
		}
	}
	sc.add(hs, e, KindInternalDomain)
}

// nanpRe is compiled on its first use (lazy.go): PII redaction is opt-in.
var nanpRe = lazyRE(`^(?:\(\d{3}\) ?|\d{3}[-.])\d{3}[-.]\d{4}`)

// piiNumbers finds phone numbers and payment card numbers (opt-in PII) in a
// pass of its own: they have no keyword to anchor on.
func (sc *scanner) piiNumbers() {
	b := sc.b
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(is(c, cDigit) || c == '+' || c == '(') || !boundaryBefore(b, i, cAlnum|cDot|cPlus|cDash) {
			continue
		}
		if end := sc.cardAt(i); end > 0 {
			i = end
			continue
		}
		if end := phoneAt(b, i); end > 0 {
			sc.add(i, end, KindPhone)
			i = end
		}
	}
}

// numberEnds reports whether a number ends at i: no letter or digit follows,
// nor a '.' or '-' that continues it (1.2.3, 2025-03-14).
func numberEnds(b []byte, i int) bool {
	if i >= len(b) {
		return true
	}
	if is(b[i], cAlnum) {
		return false
	}
	return !((b[i] == '.' || b[i] == '-') && i+1 < len(b) && is(b[i+1], cDigit))
}

// phoneAt matches +<8-15 digits with separators> or a North American
// (415) 555-2671 / 415-555-2671 number at i, returning its end or -1.
func phoneAt(b []byte, i int) int {
	if b[i] == '+' {
		j, digits, end := i+1, 0, -1
		for j < len(b) && j < i+24 {
			c := b[j]
			if is(c, cDigit) {
				digits++
				j++
				end = j
				continue
			}
			if (c == ' ' || c == '-' || c == '.' || c == '(' || c == ')') && digits > 0 {
				j++
				continue
			}
			break
		}
		if digits >= 8 && digits <= 15 && end > 0 && numberEnds(b, end) {
			return end
		}
		return -1
	}
	if i+12 > len(b) {
		return -1
	}
	if !(b[i] == '(' && is(b[i+1], cDigit)) && !(is(b[i], cDigit) && (b[i+3] == '-' || b[i+3] == '.')) {
		return -1
	}
	m := nanpRe().FindIndex(window(b, i, 16))
	if m == nil || !numberEnds(b, i+m[1]) {
		return -1
	}
	return i + m[1]
}

// cardAt matches a 13-19 digit payment card number at i (contiguous or in
// groups separated by single spaces or dashes) that passes the Luhn check
// and starts with a card network prefix. It records the finding and returns
// its end, or -1.
func (sc *scanner) cardAt(i int) int {
	b := sc.b
	if !is(b[i], cDigit) {
		return -1
	}
	var digits [19]byte
	n, j, end := 0, i, -1
	sep := byte(0)
	for j < len(b) && n < 19 {
		c := b[j]
		if is(c, cDigit) {
			digits[n] = c - '0'
			n++
			j++
			end = j
			continue
		}
		if (c == ' ' || c == '-') && (sep == 0 || sep == c) && j+1 < len(b) && is(b[j+1], cDigit) {
			sep = c
			j++
			continue
		}
		break
	}
	if n < 13 || !numberEnds(b, end) {
		return -1
	}
	d := digits[:n]
	if !cardPrefix(d) || !luhn(d) {
		return -1
	}
	if testCard(b[i:end]) {
		sc.addExample(i, end, KindCreditCard)
	} else {
		sc.add(i, end, KindCreditCard)
	}
	return end
}

func luhn(d []byte) bool {
	sum := 0
	for k := 0; k < len(d); k++ {
		x := int(d[len(d)-1-k])
		if k%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

// cardPrefix checks network prefixes and lengths: Visa, Mastercard, Amex,
// Discover, JCB, Diners, UnionPay.
func cardPrefix(d []byte) bool {
	n := len(d)
	p2 := int(d[0])*10 + int(d[1])
	p4 := p2*100 + int(d[2])*10 + int(d[3])
	switch {
	case d[0] == 4:
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return n == 16
	case p2 == 34 || p2 == 37:
		return n == 15
	case p4 == 6011 || p2 == 65 || (p4/10 >= 644 && p4/10 <= 649):
		return n >= 16
	case p2 == 35:
		return n >= 16
	case p2 == 36 || p2 == 38 || (p4/10 >= 300 && p4/10 <= 305):
		return n == 14
	case p2 == 62:
		return n >= 16
	}
	return false
}

// testCard reports the card networks' published test numbers.
func testCard(v []byte) bool {
	var d []byte
	for _, c := range v {
		if is(c, cDigit) {
			d = append(d, c)
		}
	}
	switch string(d) {
	case "4111111111111111", "4242424242424242", "4012888888881881", "4000056655665556",
		"5555555555554444", "5105105105105100", "2223003122003222", "5200828282828210",
		"378282246310005", "371449635398431", "6011111111111117", "6011000990139424",
		"3530111333300000", "3566002020360505", "30569309025904", "38520000023237",
		"6200000000000005", "4000000000000002", "4000000000000077":
		return true
	}
	return false
}
