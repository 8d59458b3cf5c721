package ansi

// Patched (agent, third_party/glamour): glamour v2.0.1 strips HTML with
// bluemonday.StrictPolicy(). Linking bluemonday runs its package
// initializers (and those of bluemonday/css and gorilla/css: ~1 MB and
// 2-8 ms of regular expressions and tables) in every process of the binary,
// for a policy that uses none of them. stripHTML is that policy's Sanitize,
// written over the same tokenizer (golang.org/x/net/html), step for step:
// agent's internal/tui/markdown tests compare the two on a corpus and on
// random input.

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// skipContent are the elements whose text bluemonday's default policy drops
// with them (addDefaultSkipElementContent).
var skipContent = map[string]struct{}{
	"frame": {}, "frameset": {}, "iframe": {}, "noembed": {}, "noframes": {},
	"noscript": {}, "nostyle": {}, "object": {}, "script": {}, "style": {},
	"title": {},
}

// stripHTML removes every element, comment and doctype from s, keeping the
// text (HTML-escaped) except inside the elements of skipContent and of
// script and style: bluemonday.StrictPolicy().Sanitize(s).
func stripHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var (
		buf            bytes.Buffer
		skipping       bool
		skippingCount  int64
		mostRecentOpen string
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		if z.Next() == html.ErrorToken {
			if z.Err() == io.EOF {
				return buf.String()
			}
			return "" // bluemonday returns an empty result on a tokenizer error
		}
		tok := z.Token()
		switch tok.Type {
		case html.StartTagToken:
			mostRecentOpen = normaliseElementName(tok.Data)
			if mostRecentOpen == "script" || mostRecentOpen == "style" {
				continue
			}
			if _, ok := skipContent[tok.Data]; ok {
				skipping = true
				skippingCount++
			}
		case html.EndTagToken:
			name := normaliseElementName(tok.Data)
			if mostRecentOpen == name {
				mostRecentOpen = ""
			}
			if name == "script" || name == "style" {
				continue
			}
			if _, ok := skipContent[tok.Data]; ok {
				skippingCount--
				if skippingCount == 0 {
					skipping = false
				}
			}
		case html.TextToken:
			if !skipping && mostRecentOpen != "script" && mostRecentOpen != "style" {
				buf.WriteString(tok.String())
			}
		}
	}
}

// normaliseElementName is bluemonday's.
func normaliseElementName(str string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strconv.QuoteToASCII(str)), `"`), `"`)
}
