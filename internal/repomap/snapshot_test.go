package repomap

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// snapCache is a MemCache that keeps one snapshot in memory, counting what
// the Builder asks of it.
type snapCache struct {
	*MemCache
	mu            sync.Mutex
	data          []byte
	reads, writes int
	gets          int
	redact        func(string) string
	off           bool
	failWrite     error
	forgotten     []string
}

func newSnapCache() *snapCache { return &snapCache{MemCache: NewMemCache()} }

func (c *snapCache) Get(p string, size, mtime int64) (*FileTags, bool) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.MemCache.Get(p, size, mtime)
}

func (c *snapCache) Put(p string, size, mtime int64, t *FileTags) {
	if t == nil {
		c.mu.Lock()
		c.forgotten = append(c.forgotten, p)
		c.mu.Unlock()
	}
	c.MemCache.Put(p, size, mtime, t)
}

func (c *snapCache) ReadSnapshot(context.Context) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off {
		return nil, ErrSnapshotsOff
	}
	c.reads++
	if c.data == nil {
		return nil, fs.ErrNotExist
	}
	return bytes.Clone(c.data), nil
}

func (c *snapCache) WriteSnapshot(_ context.Context, write func(io.Writer) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failWrite != nil {
		return c.failWrite
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	c.writes++
	c.data = buf.Bytes()
	return nil
}

func (c *snapCache) SnapshotRedactor() func(string) string { return c.redact }

// sameMap fails unless two maps render and report the same, stats aside.
func sameMap(t *testing.T, what string, want, got *Map) {
	t.Helper()
	if got.Text != want.Text {
		t.Fatalf("%s: text differs:\n--- want\n%s\n--- got\n%s", what, want.Text, got.Text)
	}
	if !reflect.DeepEqual(got.Files, want.Files) || got.Tokens != want.Tokens {
		t.Fatalf("%s: files or tokens differ:\nwant %+v\ngot  %+v", what, want.Files, got.Files)
	}
}

var snapQueries = []Options{
	{},
	{Query: "How does Server.Handle register a pattern with the mux?"},
	{Query: "what does render do in web/app.js", Tokens: 300},
	{Focus: []string{"server/server.go"}, Tokens: 2048},
}

func TestSnapshotWarmBuildIsTheColdOne(t *testing.T) {
	root := writeDemo(t)
	ctx := context.Background()
	cache := newSnapCache()
	cold, err := Build(ctx, Options{Root: root, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if cache.writes != 1 || len(cache.data) == 0 {
		t.Fatalf("a cold build wrote %d snapshots, want 1", cache.writes)
	}
	for _, q := range snapQueries {
		q.Root = root
		ref, err := Build(ctx, Options{Root: root, Query: q.Query, Focus: q.Focus, Tokens: q.Tokens}) // no cache at all
		if err != nil {
			t.Fatal(err)
		}
		q.Cache = cache
		gets := cache.gets
		warm, err := Build(ctx, q) // a new Builder: a new process
		if err != nil {
			t.Fatal(err)
		}
		sameMap(t, "warm from the snapshot, query "+q.Query, ref, warm)
		if warm.Stats.Parsed != 0 || warm.Stats.Cached != cold.Stats.Parsed || cache.gets != gets {
			t.Fatalf("warm build stats %+v (cold %+v), %d cache rows read: want everything from the snapshot", warm.Stats, cold.Stats, cache.gets-gets)
		}
	}
	if cache.writes != 1 {
		t.Fatalf("warm builds with nothing changed rewrote the snapshot (%d writes)", cache.writes)
	}
}

func TestSnapshotIsPatchedWithChangedFiles(t *testing.T) {
	root := writeDemo(t)
	ctx := context.Background()
	cache := newSnapCache()
	if _, err := Build(ctx, Options{Root: root, Cache: cache}); err != nil {
		t.Fatal(err)
	}
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// an edit that defines a new name, a new file using it, a deleted file
	write("server/server.go", demoFiles["server/server.go"]+"\n// Reload re-reads the widgets.\nfunc (s *Server) ReloadWidgetCatalog() {}\n")
	write("server/reload.go", "package server\n\nfunc reloadAll(s *Server) { s.ReloadWidgetCatalog() }\n")
	if err := os.Remove(filepath.Join(root, "py", "tool.py")); err != nil {
		t.Fatal(err)
	}
	q := Options{Root: root, Query: "who calls ReloadWidgetCatalog?"}
	ref, err := Build(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Cache = cache
	b := new(Builder) // a new process, kept for a refresh below
	got, err := b.Build(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameMap(t, "snapshot patched with 2 changed files and 1 gone", ref, got)
	if got.Stats.Parsed != 2 || !strings.Contains(got.Text, "ReloadWidgetCatalog") {
		t.Fatalf("stats %+v, want the 2 changed files parsed and the new method shown:\n%s", got.Stats, got.Text)
	}
	if len(cache.forgotten) != 1 || !strings.HasSuffix(cache.forgotten[0], filepath.Join("py", "tool.py")) {
		t.Fatalf("forgotten rows = %q, want the deleted py/tool.py", cache.forgotten)
	}
	if cache.writes != 1 {
		t.Fatalf("3 patched files rewrote the snapshot (%d writes); it is rewritten past %d", cache.writes, snapshotPatchLimit(10))
	}
	// a refresh in the same process, after one more edit, is the same as a
	// fresh build too
	write("server/reload.go", "package server\n\nfunc reloadAll(s *Server) { s.ReloadWidgetCatalog(); s.Handle(\"/r\", nil) }\n")
	q.Cache = nil
	ref, _ = Build(ctx, q)
	q.Cache = cache
	again, err := b.Build(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameMap(t, "refresh after the snapshot", ref, again)
	if again.Stats.Parsed != 1 {
		t.Fatalf("refresh parsed %d files, want 1", again.Stats.Parsed)
	}
}

func TestSnapshotRewrittenPastThePatchLimit(t *testing.T) {
	root := t.TempDir()
	n := snapshotPatchLimit(0) + 6
	for i := range n {
		p := filepath.Join(root, "p", "f"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+string(rune('a'+i/26))+".go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package p\n\nfunc F"+string(rune('A'+i%26))+string(rune('A'+i/26))+"() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	cache := newSnapCache()
	if _, err := Build(ctx, Options{Root: root, Cache: cache}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "p"))
	for _, e := range entries {
		p := filepath.Join(root, "p", e.Name())
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(data, "\nfunc G() {}\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Build(ctx, Options{Root: root, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats.Parsed != n || cache.writes != 2 {
		t.Fatalf("after changing all %d files: parsed %d, %d snapshot writes; want all parsed and the snapshot rewritten", n, m.Stats.Parsed, cache.writes)
	}
	gets := cache.gets
	m, err = Build(ctx, Options{Root: root, Cache: cache})
	if err != nil || m.Stats.Parsed != 0 || cache.gets != gets {
		t.Fatalf("the rewritten snapshot is not used: %+v, %d rows read, %v", m.Stats, cache.gets-gets, err)
	}
}

// resum recomputes a snapshot's checksum after the test altered it, so
// that only the content checks stand between it and the Builder.
func resum(data []byte) {
	end := len(data) - snapshotTrailer
	binary.LittleEndian.PutUint32(data[end:], crc32.Checksum(data[snapshotHeader:end], castagnoli))
}

func TestDamagedSnapshotIsRebuilt(t *testing.T) {
	root := writeDemo(t)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "x.go"), []byte("package x\n\nfunc Other() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref, err := Build(ctx, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	good := newSnapCache()
	if _, err := Build(ctx, Options{Root: root, Cache: good}); err != nil {
		t.Fatal(err)
	}
	foreign := newSnapCache()
	if _, err := Build(ctx, Options{Root: other, Cache: foreign}); err != nil {
		t.Fatal(err)
	}
	snap := good.data
	engineAt := snapshotHeader + 4 // the engine string's bytes
	cases := []struct {
		name string
		data func() []byte
	}{
		{"empty file", func() []byte { return []byte{} }},
		{"header only", func() []byte { return bytes.Clone(snap[:snapshotHeader]) }},
		{"truncated by half", func() []byte { return bytes.Clone(snap[:len(snap)/2]) }},
		{"last byte missing", func() []byte { return bytes.Clone(snap[:len(snap)-1]) }},
		{"trailing byte", func() []byte { return append(bytes.Clone(snap), 0) }},
		{"byte flipped in the header", func() []byte { d := bytes.Clone(snap); d[3] ^= 0x40; return d }},
		{"byte flipped in the payload", func() []byte { d := bytes.Clone(snap); d[len(d)/3] ^= 0x01; return d }},
		{"byte flipped at the end", func() []byte { d := bytes.Clone(snap); d[len(d)-1] ^= 0x80; return d }},
		{"another format version", func() []byte {
			d := bytes.Clone(snap)
			binary.LittleEndian.PutUint32(d[8:], snapshotFormat+1)
			return d
		}},
		{"another engine version, checksum valid", func() []byte {
			d := bytes.Clone(snap)
			d[engineAt+len("index/")] = '9'
			resum(d)
			return d
		}},
		{"another root's snapshot", func() []byte { return bytes.Clone(foreign.data) }},
		{"not a snapshot", func() []byte { return []byte(strings.Repeat("garbage ", 100)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newSnapCache()
			c.data = tc.data()
			m, err := Build(ctx, Options{Root: root, Cache: c})
			if err != nil {
				t.Fatal(err)
			}
			sameMap(t, tc.name, ref, m)
			if c.writes != 1 {
				t.Fatalf("the damaged snapshot was not rewritten (%d writes)", c.writes)
			}
			if _, err := decodeSnapshot(c.data, 1); err != nil {
				t.Fatalf("the rewritten snapshot does not read back: %v", err)
			}
			m2, err := Build(ctx, Options{Root: root, Cache: c})
			if err != nil || m2.Stats.Parsed != 0 {
				t.Fatalf("the rewritten snapshot is not used: %+v %v", m2.Stats, err)
			}
			sameMap(t, tc.name+", from the rewritten snapshot", ref, m2)
		})
	}
}

// TestCraftedSnapshotNeverPanics alters every few bytes of a snapshot and
// fixes its checksum, as someone writing the file on purpose would: each
// one must decode to an error or to a snapshot whose every index and span
// is in range (a build from it completes).
func TestCraftedSnapshotNeverPanics(t *testing.T) {
	root := writeDemo(t)
	ctx := context.Background()
	good := newSnapCache()
	if _, err := Build(ctx, Options{Root: root, Cache: good}); err != nil {
		t.Fatal(err)
	}
	snap := good.data
	step := max(1, len(snap)/1500)
	for at := snapshotHeader; at < len(snap)-snapshotTrailer; at += step {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			d := bytes.Clone(snap)
			d[at] ^= x
			resum(d)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("byte %d ^ %#x: panic %v\n%s", at, x, p, debugStack())
					}
				}()
				if _, err := decodeSnapshot(bytes.Clone(d), 1); err != nil {
					return
				}
				c := newSnapCache()
				c.data = d
				if _, err := Build(ctx, Options{Root: root, Cache: c}); err != nil {
					t.Fatalf("byte %d ^ %#x: %v", at, x, err)
				}
				_ = debugStack
			}()
		}
	}
}

func TestSnapshotRedactsWhatItPersists(t *testing.T) {
	root := t.TempDir()
	const secret = "sk-live-0123456789abcdefSECRET"
	src := "package conf\n\nimport \"example.com/" + secret + "/client\"\n\n// Key is the service key.\nconst Key = \"" + secret + "\"\n\nvar " + "Token" + secret[8:] + " = client.New()\n"
	if err := os.WriteFile(filepath.Join(root, "conf.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := newSnapCache()
	c.redact = func(s string) string { return strings.ReplaceAll(s, secret[8:], "[REDACTED]") }
	if _, err := Build(ctx, Options{Root: root, Cache: c}); err != nil {
		t.Fatal(err)
	}
	if len(c.data) == 0 {
		t.Fatal("no snapshot written")
	}
	if bytes.Contains(c.data, []byte(secret[8:])) {
		t.Fatalf("the snapshot holds the secret in clear")
	}
	m, err := Build(ctx, Options{Root: root, Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.Text, secret[8:]) || !strings.Contains(m.Text, "[REDACTED]") {
		t.Fatalf("a map from the redacted snapshot should show the redaction:\n%s", m.Text)
	}
}

func TestSnapshotsOffAndFailedWrite(t *testing.T) {
	root := writeDemo(t)
	ctx := context.Background()
	c := newSnapCache()
	c.off = true
	if _, err := Build(ctx, Options{Root: root, Cache: c}); err != nil {
		t.Fatal(err)
	}
	if c.writes != 0 || c.data != nil {
		t.Fatalf("snapshots off, yet %d written", c.writes)
	}
	f := newSnapCache()
	f.failWrite = fs.ErrPermission
	if _, err := Build(ctx, Options{Root: root, Cache: f}); err == nil || !strings.Contains(err.Error(), "save snapshot") {
		t.Fatalf("a failed snapshot write gave %v, want an error naming it", err)
	}
}

func debugStack() []byte { return debug.Stack() }

// TestSnapshotTableFindsEveryName checks the bisected table against the
// maps it replaces: every name and scoped name of a snapshot's table is
// found again with its id, and nothing is added.
func TestSnapshotTableFindsEveryName(t *testing.T) {
	root := writeDemo(t)
	b := new(Builder)
	c := newSnapCache()
	if _, err := b.Build(context.Background(), Options{Root: root, Cache: c}); err != nil {
		t.Fatal(err)
	}
	want := b.in
	s, err := decodeSnapshot(c.data, 7)
	if err != nil {
		t.Fatal(err)
	}
	got := s.in
	if got.n() != want.n() || len(got.ids) != 0 {
		t.Fatalf("decoded table: %d ids (%d in maps), want %d, all in the base", got.n(), len(got.ids), want.n())
	}
	for name, id := range want.ids {
		if v := got.id(name); v != id {
			t.Errorf("id(%q) = %d, want %d", name, v, id)
		}
	}
	for k, id := range want.scoped {
		if v, ok := got.baseScoped(k); !ok || v != id {
			t.Errorf("scoped %v = %d %v, want %d", k, v, ok, id)
		}
	}
	if got.n() != want.n() {
		t.Fatalf("lookups added %d ids", got.n()-want.n())
	}
	if v := got.id(".noSuchMember"); v != int32(want.n()) {
		t.Fatalf("a new name got id %d, want %d", v, want.n())
	}
}

// TestSnapshotKeepsNoGoRows: with a snapshot, a cold build Puts rows for
// the files of other languages only (a Go file is cheaper to scan again
// than its row is to write); when the snapshot is then lost, the next
// build parses the Go files again, takes the others from their rows, and
// maps exactly what a build without any cache maps. Without snapshots,
// Go files keep their rows.
func TestSnapshotKeepsNoGoRows(t *testing.T) {
	root := writeDemo(t)
	ctx := context.Background()
	cache := newSnapCache()
	cold, err := Build(ctx, Options{Root: root, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	rows := func(c *snapCache) (goRows, others int) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for p := range c.m {
			if strings.HasSuffix(p, ".go") {
				goRows++
			} else {
				others++
			}
		}
		return goRows, others
	}
	if g, o := rows(cache); g != 0 || o == 0 {
		t.Fatalf("a cold build with a snapshot kept %d Go rows and %d others, want none and some: %+v", g, o, cold.Stats)
	}

	cache.data = nil // the snapshot is gone
	ref, err := Build(ctx, Options{Root: root, Query: "render"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(ctx, Options{Root: root, Query: "render", Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	sameMap(t, "rebuilt without the snapshot", ref, again)
	if again.Stats.Cached == 0 || again.Stats.Cached+again.Stats.Parsed != ref.Stats.Parsed {
		t.Fatalf("rebuild stats %+v (no cache: %+v): want the Go files parsed and the others from their rows", again.Stats, ref.Stats)
	}

	fresh := &snapCache{MemCache: NewMemCache(), off: true} // snapshots off: Go rows are kept
	if _, err := Build(ctx, Options{Root: root, Cache: fresh}); err != nil {
		t.Fatal(err)
	}
	if g, _ := rows(fresh); g == 0 {
		t.Fatal("without snapshots a cold build kept no Go rows")
	}
}
