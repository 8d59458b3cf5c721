package redact

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mixedCorpus builds size bytes of Go and JS source and log lines, mostly
// secret-free but full of the words and shapes detectors key on (token,
// secret, password, key, UUIDs, hashes), with one generated secret about
// every 100 KiB. It returns the corpus and the secrets inserted.
func mixedCorpus(size int) ([]byte, []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	hexs := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alHex[rng.IntN(16)]
		}
		return string(b)
	}
	word := func() string {
		return []string{"token", "parser", "cfg", "req", "secretStore", "keyID", "pass", "buf", "ctx", "user", "tok", "apiKeyName"}[rng.IntN(12)]
	}
	goLines := []func() string{
		func() string { return "\ttoken := p.next()\n" },
		func() string {
			return fmt.Sprintf("\tif %s == nil {\n\t\treturn nil, fmt.Errorf(\"load %%s: %%w\", name, err)\n\t}\n", word())
		},
		func() string {
			return fmt.Sprintf("func (s *Server) handle%d(w http.ResponseWriter, r *http.Request) {\n", rng.IntN(1000))
		},
		func() string { return "\tpassword := r.FormValue(\"password\")\n" },
		func() string { return fmt.Sprintf("\tsecret, err := s.vault.Get(ctx, %q)\n", "app/"+word()) },
		func() string { return "\t// Token returns the next token from the input, skipping comments.\n" },
		func() string { return fmt.Sprintf("\tconst maxTokens = %d\n", rng.IntN(9000)) },
		func() string { return fmt.Sprintf("\tkey := fmt.Sprintf(\"%%s/%%d\", prefix, %d)\n", rng.IntN(100)) },
		func() string {
			return fmt.Sprintf("\tcase token.%s:\n\t\treturn %s.Pos()\n", []string{"ADD", "SUB", "IDENT"}[rng.IntN(3)], word())
		},
		func() string { return fmt.Sprintf("\tvar commit = %q\n", hexs(40)) },
		func() string { return "}\n\n" },
		func() string { return "\tfor i := 0; i < len(b); i++ {\n\t\tsum += int(b[i])\n\t}\n" },
	}
	jsLines := []func() string{
		func() string { return "const token = await getToken();\n" },
		func() string {
			return fmt.Sprintf("export function parse%d(input) {\n  return input.split(',').map((s) => s.trim());\n}\n", rng.IntN(500))
		},
		func() string { return "  this.secret = options.secret || process.env.APP_SECRET;\n" },
		func() string { return fmt.Sprintf("  headers: { 'x-request-id': '%s-%s' },\n", hexs(8), hexs(4)) },
		func() string { return "  password: PropTypes.string.isRequired,\n" },
		func() string {
			return fmt.Sprintf("\"integrity\": \"sha512-%s\",\n", b64(bytes.Repeat([]byte{byte(rng.IntN(256)), byte(rng.IntN(256)), 7}, 22)))
		},
	}
	logLines := []func() string{
		func() string {
			return fmt.Sprintf("2025-03-14T09:%02d:%02d.%03dZ INFO  [http] GET /api/v1/items/%d status=200 dur=%dms request_id=%s-%s-%s\n",
				rng.IntN(60), rng.IntN(60), rng.IntN(1000), rng.IntN(99999), rng.IntN(900), hexs(8), hexs(4), hexs(12))
		},
		func() string {
			return fmt.Sprintf("{\"level\":\"debug\",\"ts\":%d.%d,\"msg\":\"token refreshed\",\"expires_in\":3600,\"token_type\":\"Bearer\",\"user\":\"u%d\"}\n",
				1700000000+rng.IntN(1e7), rng.IntN(1000), rng.IntN(1e5))
		},
		func() string {
			return fmt.Sprintf("time=2025-03-14T09:26:53Z level=warn msg=\"auth failed\" reason=\"invalid password\" attempts=%d ip=10.0.%d.%d\n", rng.IntN(5), rng.IntN(255), rng.IntN(255))
		},
		func() string {
			return fmt.Sprintf("Mar 14 09:26:53 host sshd[%d]: Accepted publickey for deploy from 10.1.2.3 port %d ssh2: ED25519 SHA256:%s\n", rng.IntN(99999), rng.IntN(65535), b64([]byte(hexs(32)))[:43])
		},
		func() string { return fmt.Sprintf("docker: pulled image sha256:%s\n", hexs(64)) },
	}
	groups := [][]func() string{goLines, jsLines, logLines}
	var sb strings.Builder
	var secrets []string
	next := 100 << 10
	kinds := []string{KindGitHubToken, KindAWSAccessKeyID, KindSlackToken, KindJWT, KindGenericSecret, KindDBURLPassword, KindPrivateKey, KindStripeKey, KindOpenAIKey}
	for sb.Len() < size {
		g := groups[rng.IntN(len(groups))]
		for range 20 {
			sb.WriteString(g[rng.IntN(len(g))]())
		}
		if sb.Len() >= next {
			next += 100 << 10
			gens := generators[kinds[len(secrets)%len(kinds)]]
			s := gens[0]()
			ctx := contexts[len(secrets)%len(contexts)]
			if s.Multiline {
				ctx = multilineContexts[0]
			}
			sb.WriteString(ctx.render(s.Name, s.Value))
			secrets = append(secrets, ctx.escape(s.Secret))
		}
	}
	return []byte(sb.String()), secrets
}

var mixed struct {
	once    sync.Once
	data    []byte
	secrets []string
}

func mixedData() ([]byte, []string) {
	mixed.once.Do(func() { mixed.data, mixed.secrets = mixedCorpus(10 << 20) })
	return mixed.data, mixed.secrets
}

// TestMixedCorpus: every secret planted in the benchmark corpus is found,
// and nothing else.
func TestMixedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("10 MB corpus")
	}
	data, secrets := mixedData()
	r := New(Config{Key: testKey})
	fs := r.Find(data)
	n := 0
	for _, f := range fs {
		if !f.Example {
			n++
		}
	}
	out := r.RedactBytes(data)
	for _, s := range secrets {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("planted secret left: %.60q", s)
		}
	}
	t.Logf("mixed corpus: %.1f MB, %d secrets planted, %d findings", float64(len(data))/1e6, len(secrets), n)
	if n != len(secrets) {
		for _, f := range fs {
			t.Logf("%s %q", f.Kind, data[f.Start:min(f.End, f.Start+80)])
		}
		t.Errorf("%d findings for %d planted secrets", n, len(secrets))
	}
}

func BenchmarkRedactMixed(b *testing.B) {
	data, _ := mixedData()
	r := New(Config{Key: testKey})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r.RedactBytes(data)
	}
}

// BenchmarkRedactMixedChunks redacts the same corpus through the streaming
// Writer in 16 KiB writes, as agent redact and the run_command output
// stream do.
func BenchmarkRedactMixedChunks(b *testing.B) {
	data, _ := mixedData()
	r := New(Config{Key: testKey})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		w := r.NewWriter(io.Discard)
		for i := 0; i < len(data); i += 16 << 10 {
			w.Write(data[i:min(len(data), i+16<<10)])
		}
		w.Close()
	}
}

// BenchmarkRedactMixedPII is the same corpus with the opt-in PII kinds.
func BenchmarkRedactMixedPII(b *testing.B) {
	data, _ := mixedData()
	r := New(Config{Key: testKey, PII: true, InternalDomains: []string{"corp.acme.internal"}})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r.RedactBytes(data)
	}
}

// stdlibFiles loads $(go env GOROOT)/src/**/*.go, without tests and testdata.
func stdlibFiles(tb testing.TB) (files map[string][]byte, total int) {
	tb.Helper()
	root := goroot()
	src := filepath.Join(root, "src")
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("no GOROOT sources: %v", err)
	}
	files = map[string][]byte{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(p, src+string(filepath.Separator))] = b
		total += len(b)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files, total
}

func goroot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	return "" // no go command: stdlibFiles skips
}

// TestStdlibRedactionRate reports every redaction on the standard library's
// non-test sources and requires none: the tree holds no real secret (its
// test keys are labelled "TESTING KEY"), so every redaction would be a false
// positive.
func TestStdlibRedactionRate(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ~70 MB")
	}
	files, total := stdlibFiles(t)
	r := New(Config{Key: testKey})
	n := 0
	for name, b := range files {
		for _, f := range r.Find(b) {
			if f.Example {
				continue
			}
			n++
			t.Logf("%s: %s %q", name, f.Kind, b[max(0, f.Start-40):min(len(b), f.End+20)])
		}
	}
	rate := float64(n) / (float64(total) / 1e6)
	t.Logf("stdlib: %d files, %.1f MB, %d redactions, %.3f per MB", len(files), float64(total)/1e6, n, rate)
	if n != 0 {
		t.Errorf("%d redactions (%.3f per MB), want 0", n, rate)
	}
}

func stdlibList(b *testing.B) ([][]byte, int) {
	files, total := stdlibFiles(b)
	list := make([][]byte, 0, len(files))
	for _, f := range files {
		list = append(list, f)
	}
	return list, total
}

// BenchmarkFindStdlib measures detection alone (Find, no output) on the
// standard library's non-test sources, where nothing is found: the cost of
// the scan on clean code.
func BenchmarkFindStdlib(b *testing.B) {
	list, total := stdlibList(b)
	r := New(Config{Key: testKey})
	b.SetBytes(int64(total))
	b.ResetTimer()
	findings := 0
	for b.Loop() {
		findings = 0
		for _, f := range list {
			for _, x := range r.Find(f) {
				if !x.Example {
					findings++
				}
			}
		}
	}
	b.ReportMetric(float64(findings)/(float64(total)/1e6), "findings/MB")
}

// BenchmarkRedactStdlib redacts every file (RedactBytes, what the agent
// does to a tool result) of the same corpus. Nothing is found there, so it
// measures redaction of clean input: the scan, and no copy.
func BenchmarkRedactStdlib(b *testing.B) {
	list, total := stdlibList(b)
	r := New(Config{Key: testKey})
	b.SetBytes(int64(total))
	b.ResetTimer()
	changed := 0
	for b.Loop() {
		changed = 0
		for _, f := range list {
			if out := r.RedactBytes(f); len(out) != len(f) || len(f) > 0 && &out[0] != &f[0] {
				changed++
			}
		}
	}
	b.ReportMetric(float64(changed), "files-changed")
}

// denseCorpus renders fresh samples of every kind and gitleaks rule shape
// (allGenerators), one document each, rotating through the contexts, and
// returns the corpus and the needles that must not survive redaction.
func denseCorpus(tb testing.TB, perGenerator int) ([]byte, []string) {
	var sb strings.Builder
	var needles []string
	gens := allGenerators()
	kinds := make([]string, 0, len(gens))
	for k := range gens {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	n := 0
	for _, k := range kinds {
		for _, g := range gens[k] {
			for range perGenerator {
				s := g()
				n++
				if s.Doc {
					sb.WriteString(docContexts[n%len(docContexts)].render(s.Name, s.Value))
					needles = append(needles, s.Needles...)
					continue
				}
				ctxs := contexts
				if s.Multiline {
					ctxs = multilineContexts
				}
				c := ctxs[n%len(ctxs)]
				sb.WriteString(c.render(s.Name, s.Value))
				needles = append(needles, c.escape(s.Secret))
			}
		}
	}
	return []byte(sb.String()), needles
}

// BenchmarkRedactDense redacts a corpus made of secrets: one fresh sample
// of every generator (~280 documents of 130-odd kinds) after another, about
// one secret per 200 bytes. It reports the redactions per MB and fails if
// a planted secret survives.
func BenchmarkRedactDense(b *testing.B) {
	data, needles := denseCorpus(b, 4)
	r := New(Config{Key: testKey})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var out []byte
	for b.Loop() {
		out = r.RedactBytes(data)
	}
	b.StopTimer()
	for _, n := range needles {
		if bytes.Contains(out, []byte(n)) {
			b.Fatalf("planted secret left: %.60q", n)
		}
	}
	b.ReportMetric(float64(bytes.Count(out, []byte("[REDACTED:")))/(float64(len(data))/1e6), "redactions/MB")
}

// TestWriteBenchCorpus writes the generated corpora to $REDACT_CORPUS_DIR
// for scripts/bench-gitleaks.sh, which runs gitleaks and agent redact over
// the same bytes: mixed.txt (the 10 MB mixed corpus) and dense/NNNN.txt
// (one file per fresh sample of every generator), each with a .needles
// file listing what must not survive, one a line, tab-separated from its
// kind.
func TestWriteBenchCorpus(t *testing.T) {
	dir := os.Getenv("REDACT_CORPUS_DIR")
	if dir == "" {
		t.Skip("REDACT_CORPUS_DIR not set")
	}
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, secrets := mixedCorpus(10 << 20)
	write("mixed.txt", data)
	var nl strings.Builder
	for _, s := range secrets {
		nl.WriteString("mixed\t" + s + "\n")
	}
	write("mixed.needles", []byte(nl.String()))

	gens := allGenerators()
	kinds := make([]string, 0, len(gens))
	for k := range gens {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	nl.Reset()
	n := 0
	for _, k := range kinds {
		for _, g := range gens[k] {
			for range 5 {
				s := g()
				n++
				var doc string
				var ns []string
				if s.Doc {
					doc, ns = docContexts[n%len(docContexts)].render(s.Name, s.Value), s.Needles
				} else {
					ctxs := contexts
					if s.Multiline {
						ctxs = multilineContexts
					}
					c := ctxs[n%len(ctxs)]
					doc, ns = c.render(s.Name, s.Value), []string{c.escape(s.Secret)}
				}
				name := fmt.Sprintf("dense/%05d.txt", n)
				write(name, []byte(doc))
				for _, x := range ns {
					if strings.ContainsAny(x, "\t\n") {
						continue // one a line: multi-line needles are listed by their lines elsewhere
					}
					nl.WriteString(k + "\t" + x + "\n")
				}
			}
		}
	}
	write("dense.needles", []byte(nl.String()))
	t.Logf("wrote %s: mixed.txt %d bytes, %d dense files", dir, len(data), n)
}

// BenchmarkAddKnown measures registering one value (the prefilter is
// rebuilt) with 50 values already registered.
func BenchmarkAddKnown(b *testing.B) {
	r := New(Config{Key: testKey})
	for range 50 {
		r.AddKnown("", rsecret(alBase62, 24))
	}
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = rsecret(alBase62, 24)
	}
	i := 0
	for b.Loop() {
		r.AddKnown("", vals[i%len(vals)])
		i++
	}
}

// BenchmarkRedactMixedKnown100 is the mixed corpus with 100 registered
// known values (each adds prefilter states).
func BenchmarkRedactMixedKnown100(b *testing.B) {
	data, _ := mixedData()
	r := New(Config{Key: testKey})
	for range 100 {
		r.AddKnown("", rsecret(alBase62+"-_", 32))
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r.RedactBytes(data)
	}
}

// BenchmarkNeedsNormalise is the cost issue 19's escape check adds to every
// scan of text without escapes (the mixed corpus has none).
func BenchmarkNeedsNormalise(b *testing.B) {
	data, _ := mixedData()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if needsNormalise(data) {
			b.Fatal("the mixed corpus has escapes")
		}
	}
}

// BenchmarkRedactColoured redacts the mixed corpus with a colour code on
// every 50th line: the whole buffer takes the second, normalised pass.
func BenchmarkRedactColoured(b *testing.B) {
	data, _ := mixedData()
	lines := bytes.SplitAfter(data, []byte("\n"))
	var buf bytes.Buffer
	for i, l := range lines {
		if i%50 == 0 {
			buf.WriteString("\x1b[32m")
		}
		buf.Write(l)
	}
	col := buf.Bytes()
	r := New(Config{Key: testKey})
	b.SetBytes(int64(len(col)))
	b.ResetTimer()
	for b.Loop() {
		r.RedactBytes(col)
	}
}
