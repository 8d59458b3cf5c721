package tokens

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The mixed corpus whose counts are compared with the reference encoder's
// (testdata/reference.json, written by scripts/tokens-reference.sh). Every
// item but the GOROOT files is generated here from a fixed seed with a
// generator of our own (splitmix64), so the text is the same on every
// machine and Go version; a GOROOT file is recorded by its SHA-256 so that a
// different toolchain's copy is noticed rather than compared.

// corpusItem is one text of the corpus.
type corpusItem struct {
	Name string
	Text string
	// Goroot is the GOROOT-relative path the text was read from, if any.
	Goroot string
}

// gorootFiles are read whole at test time: source that changes seldom,
// plus one large file.
var gorootFiles = []string{
	"src/sort/sort.go",
	"src/container/list/list.go",
	"src/unicode/utf8/utf8.go",
	"src/fmt/print.go",
	"src/go/ast/ast.go",
	"src/net/http/server.go",
}

func gorootDir() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// buildCorpus returns the corpus. A GOROOT file that cannot be read is left
// out (its reference entry then reports it missing).
func buildCorpus() []corpusItem {
	var items []corpusItem
	if root := gorootDir(); root != "" {
		for _, p := range gorootFiles {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				continue
			}
			items = append(items, corpusItem{Name: "goroot/" + p, Text: string(b), Goroot: p})
		}
	}
	r := &rng{state: 11}
	items = append(items,
		corpusItem{Name: "go/generated", Text: genGo(r, 120)},
		corpusItem{Name: "python/generated", Text: genPython(r, 150)},
		corpusItem{Name: "cjk/zh", Text: genProse(r, zhWords, "，", "。", "", 400)},
		corpusItem{Name: "cjk/ja", Text: genProse(r, jaWords, "、", "。", "", 400)},
		corpusItem{Name: "cjk/ko", Text: genProse(r, koWords, ", ", ". ", " ", 400)},
		corpusItem{Name: "cjk/mixed", Text: genMixedCJK(r, 200)},
		corpusItem{Name: "json/compact", Text: genJSON(r, false)},
		corpusItem{Name: "json/indented", Text: genJSON(r, true)},
		corpusItem{Name: "logs/server", Text: genServerLog(r, 400)},
		corpusItem{Name: "logs/go-test-panic", Text: genPanicLog(r, 30)},
		corpusItem{Name: "logs/ansi-progress", Text: genANSILog(r, 200)},
		corpusItem{Name: "emoji", Text: genProse(r, emojiWords, " ", "\n", " ", 500)},
		corpusItem{Name: "scripts/other", Text: genProse(r, otherScripts, " ", ".\n", " ", 500)},
		corpusItem{Name: "invalid-utf8/bytes", Text: genBytes(r, 3000)},
		corpusItem{Name: "invalid-utf8/mixed", Text: genInvalidMixed(r, 400)},
	)
	for i, s := range edgeCases(r) {
		items = append(items, corpusItem{Name: fmt.Sprintf("edge/%02d", i), Text: s})
	}
	for i := range 16 {
		items = append(items, corpusItem{Name: fmt.Sprintf("stress/%02d", i), Text: genStress(r, 64)})
	}
	return items
}

// stressAlphabet mixes every rune class the pre-tokenizer tells apart:
// ASCII and other cased letters (Lu, Ll, Lt, Lm, Lo), the contraction
// letters and 'ſ', marks (Mn, Mc, Me), numbers (Nd, Nl, No), each kind of
// whitespace and newline, DEL and other controls, format characters,
// apostrophes, '/' and other punctuation, emoji parts.
var stressAlphabet = []string{"a", "b", "Z", "Q", "s", "t", "r", "e", "v", "m", "l", "d", "S", "T", "R", "E", "V", "M", "L", "D", "ſ",
	"'", "'", "'", "0", "7", "9", " ", " ", " ", "\t", "\n", "\n", "\r", "\v", "\f", "/", ".", ",", "!", "?", "-", "_", "(", "{", "<",
	"\"", "\x7f", "\x00", "\x1b", "ǅ", "ʰ", "ー", "中", "あ", "ا", "\u0301", "\u064b", "\u0903", "\u20dd", "٣", "Ⅻ", "½", "²", "０",
	"\u00a0", "\u3000", "\u2028", "\u0085", "\u200b", "\ufeff", "🚀", "\u200d", "\ufe0f", "É", "Ω", "é", "ω", "ǈ", "ꟸ", "ß", "İ",
	"ı", "K", "\U0001F3FD"}

// genStress is n random strings of 1 to 40 runes of stressAlphabet.
func genStress(r *rng, n int) string {
	var b strings.Builder
	for range n {
		for range 1 + r.intn(40) {
			b.WriteString(pick(r, stressAlphabet))
		}
	}
	return b.String()
}

// corpusHash identifies an item's text (its bytes, before any coercion).
func corpusHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// rng is splitmix64: tiny, and ours, so the corpus never depends on a
// library's generator.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

var identWords = []string{"user", "request", "buffer", "count", "index", "path", "config", "handler", "token",
	"cache", "result", "value", "node", "tree", "parse", "render", "client", "server", "stream", "reader",
	"writer", "budget", "layer", "plan", "step", "journal", "checkpoint", "approval", "secret", "window"}

func camel(r *rng, n int, upper bool) string {
	var b strings.Builder
	for i := range n {
		w := pick(r, identWords)
		if i > 0 || upper {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

func snake(r *rng, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = pick(r, identWords)
	}
	return strings.Join(parts, "_")
}

func genGo(r *rng, funcs int) string {
	var b strings.Builder
	b.WriteString("// Package gen is generated.\npackage gen\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"strings\"\n)\n\n")
	for range funcs {
		typ := camel(r, 2, true)
		fmt.Fprintf(&b, "// %s holds %d %ss.\ntype %s struct {\n", typ, r.intn(100), pick(r, identWords), typ)
		for range 1 + r.intn(4) {
			fmt.Fprintf(&b, "\t%s %s `json:\"%s,omitempty\"`\n", camel(r, 2, true), pick(r, []string{"int", "string", "[]byte", "map[string]int", "*Node", "error", "chan<- struct{}"}), snake(r, 2))
		}
		b.WriteString("}\n\n")
		fn := camel(r, 2, false)
		fmt.Fprintf(&b, "func (x *%s) %s(ctx context.Context, n int) (string, error) {\n", typ, strings.ToUpper(fn[:1])+fn[1:])
		fmt.Fprintf(&b, "\tif n <= %d {\n\t\treturn \"\", fmt.Errorf(\"%s: n=%%d: %%w\", n, ctx.Err())\n\t}\n", r.intn(1000), fn)
		fmt.Fprintf(&b, "\tvar sb strings.Builder\n\tfor i := 0; i < n; i++ {\n\t\tsb.WriteString(fmt.Sprintf(\"%%x\\t%%q\\n\", i<<%d, \"%s\"))\n\t}\n", r.intn(8), pick(r, identWords))
		fmt.Fprintf(&b, "\tswitch m := n %% %d; {\n\tcase m == 0:\n\t\treturn sb.String(), nil\n\tdefault:\n\t\treturn strings.Repeat(\"-\", m), nil\n\t}\n}\n\n", 2+r.intn(9))
	}
	return b.String()
}

func genPython(r *rng, funcs int) string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\"\"\"Generated module.\"\"\"\nfrom __future__ import annotations\n\nimport os, sys\nfrom dataclasses import dataclass, field\n\nπ = 3.14159\n\n")
	for i := range funcs {
		name := snake(r, 2)
		switch i % 3 {
		case 0:
			cls := camel(r, 2, true)
			fmt.Fprintf(&b, "@dataclass(frozen=True)\nclass %s:\n    '''A %s.'''\n    %s: int = %d\n    %s: list[str] = field(default_factory=list)\n\n", cls, pick(r, identWords), snake(r, 1), r.intn(1000), snake(r, 2))
			fmt.Fprintf(&b, "    def %s(self, *args, **kwargs) -> dict[str, int]:\n        return {k: v ** 2 for k, v in kwargs.items() if v %% %d != 0}\n\n", name, 2+r.intn(5))
		case 1:
			fmt.Fprintf(&b, "def %s(path: str, n: int = %d) -> str:\n    \"\"\"Read %s from path, n at a time.\n\n    Raises ValueError if it's empty.\n    \"\"\"\n", name, r.intn(64), pick(r, identWords))
			fmt.Fprintf(&b, "    if not os.path.exists(path):\n        raise ValueError(f\"{path!r} doesn't exist ({n=})\")\n    with open(path, 'rb') as fh:\n        data = fh.read(n)\n    return data.decode('utf-8', errors='replace')\n\n")
		default:
			fmt.Fprintf(&b, "async def %s(queue):\n\twhile True:\n\t\titem = await queue.get()\n\t\tprint(f'{item:>10} | {len(item):04d}', file=sys.stderr)  # tab-indented\n\t\tif item is None: break\n\n", name)
		}
	}
	b.WriteString("if __name__ == '__main__':\n    sys.exit(main())\n")
	return b.String()
}

var zhWords = []string{"我们", "需要", "修改", "这个", "函数", "以便", "处理", "空的", "输入", "测试", "失败", "了", "因为",
	"缓存", "没有", "被", "清除", "请", "不要", "删除", "用户", "的", "数据", "计划", "第六步", "继续", "检查点", "回滚", "令牌", "预算"}
var jaWords = []string{"この", "関数", "は", "入力", "が", "空", "の", "とき", "エラー", "を", "返します", "テスト", "失敗", "しました",
	"キャッシュ", "ファイル", "書き込み", "承認", "待ち", "です", "ます", "計画", "ステップ", "ロールバック", "ｶﾀｶﾅ", "漢字", "ひらがな"}
var koWords = []string{"이", "함수는", "빈", "입력을", "처리하지", "못합니다", "테스트가", "실패했습니다", "캐시를", "지워야", "합니다",
	"사용자의", "데이터를", "삭제하지", "마세요", "계획", "단계", "체크포인트", "되돌리기", "토큰", "예산"}
var emojiWords = []string{"👍", "👍🏽", "🎉", "🚀", "❤️", "🇯🇵", "🇺🇸", "🏳️‍🌈", "👨‍👩‍👧‍👦", "1️⃣", "🤖", "😀😃😄", "✅", "❌", "⚠️",
	"🧑🏿‍💻", "🫠", "ok", "done", "#hashtag", "™", "©", "☃", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"}
var otherScripts = []string{"Привет", "мир", "Ελληνικά", "γλώσσα", "שלום", "עולם", "مرحبا", "بالعالم", "नमस्ते", "दुनिया",
	"สวัสดีชาวโลก", "ሰላም", "Tiếng", "Việt", "café", "naïve", "e\u0301", "Ångström", "straße", "ﬁ", "١٢٣", "٤٥٦", "Ⅻ", "½",
	"x²", "∑", "∀x∈ℝ", "\u00a0", "\u200b", "\ufeff", "İstanbul", "ǅ"}

func genProse(r *rng, words []string, comma, stop, sep string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(pick(r, words))
		switch k := r.intn(10); {
		case k == 0:
			b.WriteString(stop)
		case k == 1:
			b.WriteString(comma)
		case i%37 == 36:
			b.WriteString("\n\n")
		default:
			b.WriteString(sep)
		}
	}
	return b.String()
}

func genMixedCJK(r *rng, n int) string {
	var b strings.Builder
	for range n {
		switch r.intn(6) {
		case 0:
			fmt.Fprintf(&b, "「%s」", pick(r, zhWords))
		case 1:
			fmt.Fprintf(&b, "`%s()` ", camel(r, 2, false))
		case 2:
			fmt.Fprintf(&b, "％%d ", r.intn(100))
		case 3:
			b.WriteString(pick(r, jaWords) + "！？")
		case 4:
			b.WriteString(pick(r, koWords) + " (" + pick(r, identWords) + ") ")
		default:
			fmt.Fprintf(&b, "第%d行：%s\n", r.intn(500), pick(r, zhWords))
		}
	}
	return b.String()
}

func genValue(r *rng, depth int) any {
	switch k := r.intn(9); {
	case depth > 3 || k < 2:
		return pick(r, []any{nil, true, false, r.intn(100000) - 500, float64(r.intn(1e6)) / 7, 1e21, -0.000123})
	case k < 5:
		return pick(r, []string{"", "plain", "with \"quotes\" and \\backslashes\\", "line\nbreak\ttab", "<script>&amp;</script>",
			"ユニコード", "emoji 🚀", "\u2028sep", pick(r, identWords) + "/" + pick(r, identWords) + ".go"})
	case k < 7:
		arr := make([]any, r.intn(5))
		for i := range arr {
			arr[i] = genValue(r, depth+1)
		}
		return arr
	default:
		obj := map[string]any{}
		for range 1 + r.intn(5) {
			obj[snake(r, 1+r.intn(2))] = genValue(r, depth+1)
		}
		return obj
	}
}

func genJSON(r *rng, indent bool) string {
	docs := make([]any, 60)
	for i := range docs {
		docs[i] = map[string]any{"id": i, "type": pick(r, []string{"tool_call", "tool_result", "model_request"}), "data": genValue(r, 0)}
	}
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(docs, "", "  ")
	} else {
		b, err = json.Marshal(docs)
	}
	if err != nil {
		panic(err) // the values above always marshal
	}
	return string(b)
}

func genServerLog(r *rng, lines int) string {
	var b strings.Builder
	levels := []string{"INFO ", "WARN ", "ERROR", "DEBUG"}
	for i := range lines {
		fmt.Fprintf(&b, "2026-11-%02dT%02d:%02d:%02d.%06dZ %s %s: %s /api/v1/%s/%d?limit=%d 200 %d.%03dms ip=10.%d.%d.%d req=%016x\n",
			1+r.intn(28), r.intn(24), r.intn(60), r.intn(60), r.intn(1e6), pick(r, levels), pick(r, identWords),
			pick(r, []string{"GET", "POST", "DELETE"}), pick(r, identWords), r.intn(99999), r.intn(500), r.intn(2000), r.intn(1000),
			r.intn(256), r.intn(256), r.intn(256), r.next())
		if i%50 == 49 {
			b.WriteString("    at com.example.Handler.handle(Handler.java:42)\n    at java.base/java.lang.Thread.run(Thread.java:833)\n")
		}
	}
	return b.String()
}

func genPanicLog(r *rng, frames int) string {
	var b strings.Builder
	b.WriteString("=== RUN   TestBuild\n--- FAIL: TestBuild (0.02s)\n    build_test.go:135: got 1025 tokens, want <= 1024\npanic: runtime error: index out of range [5] with length 5 [recovered]\n\ngoroutine 7 [running]:\n")
	for range frames {
		fmt.Fprintf(&b, "agent/internal/%s.(*%s).%s(0xc000%06x, {0x%x, 0x%x})\n\t/work/internal/%s/%s.go:%d +0x%x\n",
			pick(r, identWords), camel(r, 1, true), camel(r, 2, true), r.intn(1<<24), r.intn(1<<20), r.intn(64), pick(r, identWords), pick(r, identWords), r.intn(900), r.intn(4096))
	}
	b.WriteString("exit status 2\nFAIL\tagent/internal/repomap\t0.412s\n")
	return b.String()
}

func genANSILog(r *rng, lines int) string {
	var b strings.Builder
	for i := range lines {
		pct := i * 100 / lines
		fmt.Fprintf(&b, "\x1b[32m[%3d%%]\x1b[0m %s%s\r", pct, strings.Repeat("█", pct/5), strings.Repeat("░", 20-pct/5))
		if r.intn(8) == 0 {
			fmt.Fprintf(&b, "\n\x1b[1;31merror\x1b[0m[E%04d]: mismatched types in `%s`\n  --> src/%s.rs:%d:%d\n", r.intn(1000), snake(r, 2), pick(r, identWords), r.intn(500), r.intn(80))
		}
	}
	return b.String()
}

// genBytes is n random bytes: mostly invalid UTF-8.
func genBytes(r *rng, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.next())
	}
	return string(b)
}

func genInvalidMixed(r *rng, n int) string {
	bad := []string{"\xff", "\xfe\xff", "\x80", "\xc0\xaf", "\xe4\xbd", "\xed\xa0\x80", "\xf0\x9f\x98", "\xf4\x90\x80\x80", "\xc3", "\xe2\x82"}
	var b strings.Builder
	for range n {
		if r.intn(3) == 0 {
			b.WriteString(pick(r, bad))
		} else {
			b.WriteString(pick(r, append(append([]string{}, identWords...), zhWords...)))
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func edgeCases(r *rng) []string {
	blob := make([]byte, 3000)
	for i := range blob {
		blob[i] = byte(r.next())
	}
	return []string{
		"",
		" ",
		"\n",
		strings.Repeat(" ", 1000),
		strings.Repeat("\n", 300),
		"a  b   c    d\t\te\t \tf \n \n  \n\tg   ",
		"line one\r\nline two\r\n\r\n\r\nthree\r",
		"trailing spaces   \nand tabs\t\t\n    indented   \n",
		"12345678901234567890 3.14159265358979 1,000,000 0x7fffffff 1e-9 -42 ０１２３",
		"I'm can't won't it's we've they'll he'd SHE'S I'LL WE'RE 'quoted' ''",
		"<|endoftext|> <|endofprompt|> <|im_start|>user\nhi<|im_end|> <|fim_prefix|>",
		base64.StdEncoding.EncodeToString(blob),
		hex.EncodeToString(blob[:1000]),
		"https://example.com/path/to/resource?query=value&other=%E4%BD%A0%E5%A5%BD#fragment",
		"CamelCaseIdentifier HTTPServerError XMLHttpRequest getHTTPResponseCode snake_case_name SCREAMING_CASE kebab-case-name",
		"$ go test ./... && echo ok || exit 1; ls -la | grep -v '^d' > /dev/null 2>&1 &",
		"\"Smart quotes\" — em dash – en dash … ellipsis « guillemets » ‹ › „ low “ high ”",
		strings.Repeat("ab", 2000),
		strings.Repeat("あ", 500),
		strings.Repeat("!", 500) + strings.Repeat("?!", 200),
	}
}
