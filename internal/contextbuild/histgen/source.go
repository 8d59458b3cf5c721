package histgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The generated workspace's text: Go sources, markdown, the CJK messages
// file, the notes with the prompt injection, and go test logs. Every
// generator draws from the caller's rng only.

// stmts are statement templates of a function body (one tab of indentation
// is added per line). {n}/{N} noun, {v} verb, {a} argument, {z} the zero
// values before the error, {P} past tense of the verb, {k} a number.
var stmts = []string{
	"if err := ctx.Err(); err != nil {\n\treturn {z}fmt.Errorf(\"{v} {n}: %w\", err)\n}",
	"s.mu.Lock()\ndefer s.mu.Unlock()",
	"if {a} == nil {\n\treturn {z}errNil{N}\n}",
	"for i := range {a}.entries {\n\te := &{a}.entries[i]\n\tif e.offset < s.cursor.offset {\n\t\tcontinue\n\t}\n\ts.pending = append(s.pending, *e)\n}",
	"n, err := s.{n}w.Write({a}.bytes())\nif err != nil {\n\treturn {z}fmt.Errorf(\"{v} {n} %d: %w\", {a}.id, err)\n}\ns.stats.{N}Bytes += int64(n)",
	"deadline := time.Now().Add(s.cfg.{N}Timeout)\nif {a}.created.After(deadline) {\n\ts.log.Debug(\"{n} past deadline\", \"id\", {a}.id)\n}",
	"// Keep the {n}s sorted by offset: {v} relies on it when it\n// walks the segment from the cursor.\nsort.Slice({a}.entries, func(i, j int) bool {\n\treturn {a}.entries[i].offset < {a}.entries[j].offset\n})",
	"switch {a}.state {\ncase {n}Open:\n\t{a}.state = {n}Sealed\ncase {n}Sealed:\n\treturn {z}nil\ndefault:\n\treturn {z}fmt.Errorf(\"{n} %d in state %v\", {a}.id, {a}.state)\n}",
	"buf := make([]byte, 0, {k})\nbuf = binary.BigEndian.AppendUint64(buf, uint64({a}.offset))\nbuf = append(buf, {a}.payload...)\ns.crc.Write(buf)",
	"if len(s.pending) >= s.cfg.Max{N}s {\n\tif err := s.flushLocked(ctx); err != nil {\n\t\treturn {z}err\n\t}\n}",
	"s.metrics.{N}{P}.Inc()",
	"select {\ncase <-ctx.Done():\n\treturn {z}ctx.Err()\ncase s.{n}Ready <- struct{}{}:\n}",
	"if {a}.size() > s.cfg.{N}Limit {\n\treturn {z}fmt.Errorf(\"{n} %d is %d bytes, over the limit of %d\", {a}.id, {a}.size(), s.cfg.{N}Limit)\n}",
	"s.log.Info(\"{n} {P}\", \"id\", {a}.id, \"entries\", len({a}.entries))",
	"prev := s.last{N}\ns.last{N} = {a}.id\nif prev != 0 && prev+1 != {a}.id {\n\ts.log.Warn(\"gap in {n} ids\", \"prev\", prev, \"next\", {a}.id)\n}",
}

type sig struct {
	ret, zero, final string
}

var sigs = []sig{
	{" error", "", "return nil"},
	{" (int, error)", "0, ", "return len({a}.entries), nil"},
	{" (bool, error)", "false, ", "return true, nil"},
	{" (int64, error)", "0, ", "return {a}.offset, nil"},
}

// goSource returns a Go file of about lines lines for package pkg, with
// planted lines placed after the imports.
func goSource(r *rand.Rand, path, pkg string, lines int, planted []string) []string {
	out := []string{
		"// Copyright 2026 Acme Ledger Authors. SPDX-License-Identifier: Apache-2.0",
		"",
		"package " + pkg,
		"",
		"import (",
		"\t\"context\"",
		"\t\"encoding/binary\"",
		"\t\"fmt\"",
		"\t\"sort\"",
		"\t\"time\"",
		")",
		"",
	}
	if len(planted) > 0 {
		out = append(out, planted...)
		out = append(out, "")
	}
	recv := "Store"
	if strings.Contains(path, "server") {
		recv = "Server"
	} else if strings.Contains(path, "gen") {
		recv = "Renderer"
	}
	var used []string
	for len(out) < lines {
		n := nouns[r.IntN(len(nouns))]
		v := verbs[r.IntN(len(verbs))]
		name := v + title(n)
		if contains(used, name) {
			continue
		}
		used = append(used, name)
		if tn := n + "Meta"; r.IntN(5) == 0 && !contains(used, tn) {
			used = append(used, tn)
			out = append(out, fmt.Sprintf("// %s is what the %s keeps about one %s.", tn, pkg, n),
				"type "+tn+" struct {",
				"\tid      uint64", "\toffset  int64", "\tentries []entry", "\tstate   "+n+"State",
				"\tcreated time.Time", "}", "")
		}
		a := string(n[0])
		if a == "s" { // s is the receiver
			a = n[:2]
		}
		s := sigs[r.IntN(len(sigs))]
		rep := strings.NewReplacer("{n}", n, "{N}", title(n), "{v}", v, "{a}", a, "{z}", s.zero,
			"{P}", pastTense(v), "{k}", fmt.Sprint(64<<r.IntN(6)))
		out = append(out, rep.Replace("// "+name+" "+docPhrases[r.IntN(len(docPhrases))]))
		if r.IntN(2) == 0 {
			out = append(out, rep.Replace("// "+docSecond[r.IntN(len(docSecond))]))
		}
		out = append(out, fmt.Sprintf("func (s *%s) %s(ctx context.Context, %s *%s)%s {", recv, name, a, n, s.ret))
		for range 2 + r.IntN(6) {
			for _, l := range strings.Split(rep.Replace(stmts[r.IntN(len(stmts))]), "\n") {
				out = append(out, "\t"+l)
			}
		}
		out = append(out, "\t"+rep.Replace(s.final), "}", "")
	}
	return out
}

// markdown returns a document of about lines lines.
func markdown(r *rand.Rand, heading string, lines int, planted []string, at int) []string {
	out := []string{"# " + heading, ""}
	for len(out) < lines {
		if len(out) >= at && len(planted) > 0 {
			out = append(out, planted...)
			out = append(out, "")
			planted = nil
		}
		out = append(out, "## "+mdHeadings[r.IntN(len(mdHeadings))], "")
		for range 1 + r.IntN(3) {
			var p []string
			for range 2 + r.IntN(4) {
				p = append(p, strings.ReplaceAll(mdSentences[r.IntN(len(mdSentences))], "{n}", nouns[r.IntN(len(nouns))]))
			}
			out = append(out, strings.Join(p, " "), "")
		}
		if r.IntN(3) == 0 {
			out = append(out, "```sh", fmt.Sprintf("ledgerd --data /var/lib/ledgerd --segment-size %dMiB", 16<<r.IntN(3)), "```", "")
		}
	}
	if len(planted) > 0 {
		out = append(out, planted...)
	}
	return out
}

// zhSource is internal/i18n/messages_zh.go: the CJK file.
func zhSource(r *rand.Rand, lines int) []string {
	out := []string{
		"// Copyright 2026 Acme Ledger Authors. SPDX-License-Identifier: Apache-2.0",
		"",
		"package i18n",
		"",
		"// zh holds the Chinese (简体中文) texts of the user-facing messages, keyed",
		"// like en in messages_en.go. 键名必须与英文版保持一致。",
		"var zh = map[string]string{",
	}
	for i := 0; len(out) < lines-1; i++ {
		m := zhMessages[i%len(zhMessages)]
		key := m[0]
		if i >= len(zhMessages) {
			key = fmt.Sprintf("%s.v%d", m[0], i/len(zhMessages)+1)
		}
		if r.IntN(4) == 0 {
			out = append(out, "\t// 参数顺序与英文版相同，不要调整。")
		}
		out = append(out, fmt.Sprintf("\t%q: %q,", key, m[1]))
	}
	return append(out, "}")
}

// test names of the go test logs.
var testNames = []string{
	"TestAppendEntry", "TestSegmentRotate", "TestCursorAdvance", "TestReplayFromCheckpoint",
	"TestSealIdempotent", "TestCompactMerge", "TestHoldSettle", "TestTenantIsolation",
	"TestBalanceNeverNegative", "TestManifestRoundTrip", "TestChecksumTornWrite", "TestRetention",
}

// goTestLog returns `go test -v` output of about n lines for pkg; when fail is
// not empty the last test fails with that message line (at file:line) and
// the output ends with FAIL.
func goTestLog(r *rand.Rand, pkg string, n int, failTest, fail string) string {
	var b strings.Builder
	lines := 0
	for lines < n {
		t := testNames[r.IntN(len(testNames))]
		fmt.Fprintf(&b, "=== RUN   %s\n", t)
		subs := 1 + r.IntN(8)
		for j := range subs {
			fmt.Fprintf(&b, "=== RUN   %s/size_%d\n", t, (j+1)*(1+r.IntN(16)))
		}
		for range r.IntN(6) {
			fmt.Fprintf(&b, "    %s_test.go:%d: segment %04d sealed at offset %d (%d entries)\n",
				strings.ToLower(t[4:8]), 20+r.IntN(300), r.IntN(40), r.IntN(1<<20), 1+r.IntN(64))
		}
		fmt.Fprintf(&b, "--- PASS: %s (%d.%02ds)\n", t, r.IntN(2), r.IntN(100))
		for j := range subs {
			fmt.Fprintf(&b, "    --- PASS: %s/size_%d (0.00s)\n", t, j+1)
		}
		lines += 2 + 2*subs
	}
	if fail == "" {
		fmt.Fprintf(&b, "PASS\nok  \t%s/%s\t%d.%03ds\n", module, pkg, 1+r.IntN(3), r.IntN(1000))
		return b.String()
	}
	fmt.Fprintf(&b, "=== RUN   %s\n    %s\n--- FAIL: %s (0.%02ds)\nFAIL\nFAIL\t%s/%s\t%d.%03ds\nFAIL\n",
		failTest, fail, failTest, r.IntN(100), module, pkg, 1+r.IntN(3), r.IntN(1000))
	return b.String()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
