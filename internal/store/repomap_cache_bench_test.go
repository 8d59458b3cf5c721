package store

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"agent/internal/repomap"
)

// The benchmarks map the Go standard library's src through the SQLite
// cache, as internal/repomap's benchmarks do with its in-memory and gob
// caches:
//
//	CGO_ENABLED=0 go test -run '^$' -bench RepomapCache -benchtime 3x ./internal/store/
//
// Cold: an empty database; build and flush every row in one transaction.
// Warm: a new process's start: open the store, load the root's rows, build.
// Session: one open cache and one repomap.Builder reused by a long-lived
// process, one file changed per build (parsed again and written in its own
// transaction).
// Load: only the loading: the query alone, and the cache's Scan (the query
// and decoding every row, which a new process's first build streams).

const benchQuery = "why does ServeMux reject this path?"

func benchGoSrc(b *testing.B) string {
	dir := filepath.Join(goroot(), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no GOROOT/src: %v", err)
	}
	return dir
}

func benchCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportBenchCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(benchCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// warmHome returns a state directory whose database holds root's tags.
func warmHome(b *testing.B, root string) string {
	home := filepath.Join(b.TempDir(), "state")
	ctx := context.Background()
	s, err := Open(ctx, home)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := s.RepomapCache(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: c}); err != nil {
		b.Fatal(err)
	}
	return home
}

func BenchmarkRepomapCacheColdGoSrc(b *testing.B) {
	root := benchGoSrc(b)
	ctx := context.Background()
	var flush time.Duration
	start := benchCPU()
	for b.Loop() {
		b.StopTimer()
		home := filepath.Join(b.TempDir(), "state")
		b.StartTimer()
		s, err := Open(ctx, home)
		if err != nil {
			b.Fatal(err)
		}
		c, err := s.RepomapCache(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		f := &timedFlush{c: c}
		m, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: f, Query: benchQuery})
		if err != nil {
			b.Fatal(err)
		}
		flush += f.took
		s.Close()
		b.ReportMetric(float64(m.Stats.Parsed), "parsed")
	}
	reportBenchCPU(b, start)
	b.ReportMetric(float64(flush)/float64(b.N)/1e6, "flush-ms/op")
}

// timedFlush measures the cache's Flush inside Build.
type timedFlush struct {
	c    *RepomapCache
	took time.Duration
}

func (t *timedFlush) Get(p string, size, mtime int64) (*repomap.FileTags, bool) {
	return t.c.Get(p, size, mtime)
}
func (t *timedFlush) Put(p string, size, mtime int64, ft *repomap.FileTags) {
	t.c.Put(p, size, mtime, ft)
}
func (t *timedFlush) Flush() error {
	st := time.Now()
	err := t.c.Flush()
	t.took += time.Since(st)
	return err
}

func BenchmarkRepomapCacheWarmGoSrc(b *testing.B) {
	root := benchGoSrc(b)
	home := warmHome(b, root)
	ctx := context.Background()
	var load time.Duration
	start := benchCPU()
	for b.Loop() {
		st := time.Now()
		s, err := Open(ctx, home)
		if err != nil {
			b.Fatal(err)
		}
		c, err := s.RepomapCache(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		load += time.Since(st)
		m, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: c, Query: benchQuery})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
		if m.Stats.Parsed != 0 {
			b.Fatalf("warm build parsed %d files", m.Stats.Parsed)
		}
		b.ReportMetric(float64(m.Stats.Cached), "cached")
	}
	reportBenchCPU(b, start)
	b.ReportMetric(float64(load)/float64(b.N)/1e6, "load-ms/op")
}

// BenchmarkRepomapCacheSessionGoSrc is a refresh inside a long-lived
// process: one store, one RepomapCache and one repomap.Builder kept open,
// one file edited (its mtime moved) per build, on a copy of GOROOT/src.
func BenchmarkRepomapCacheSessionGoSrc(b *testing.B) {
	src := benchGoSrc(b)
	root := filepath.Join(b.TempDir(), "src")
	if out, err := exec.Command("cp", "-r", src, root).CombinedOutput(); err != nil {
		b.Skipf("copy GOROOT/src: %v: %s", err, out)
	}
	root, _ = filepath.EvalSymlinks(root)
	home := warmHome(b, root)
	ctx := context.Background()
	s, err := Open(ctx, home)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := s.RepomapCache(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	bl := new(repomap.Builder)
	opts := repomap.Options{Root: root, Cache: c, Query: benchQuery}
	if _, err := bl.Build(ctx, opts); err != nil {
		b.Fatal(err)
	}
	touched := filepath.Join(root, "net", "http", "server.go")
	mtime := time.Now()
	parsed := 0
	start := benchCPU()
	for b.Loop() {
		mtime = mtime.Add(time.Second)
		if err := os.Chtimes(touched, mtime, mtime); err != nil {
			b.Fatal(err)
		}
		m, err := bl.Build(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		parsed = m.Stats.Parsed
	}
	reportBenchCPU(b, start)
	b.ReportMetric(float64(parsed), "parsed")
}

func BenchmarkRepomapCacheLoadGoSrc(b *testing.B) {
	root := benchGoSrc(b)
	home := warmHome(b, root)
	ctx := context.Background()
	s, err := Open(ctx, home)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var size int64
	if err := s.DB().QueryRow(`SELECT sum(length(data)) FROM repomap_tags WHERE root = ?`, root).Scan(&size); err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		start := benchCPU()
		for b.Loop() {
			rows, err := s.DB().QueryContext(ctx, `SELECT path, size, mtime, data FROM repomap_tags WHERE root = ?`, root)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var p string
				var sz, mt int64
				var data sql.RawBytes
				if err := rows.Scan(&p, &sz, &mt, &data); err != nil {
					b.Fatal(err)
				}
				n++
			}
			rows.Close()
			b.ReportMetric(float64(n), "rows")
		}
		reportBenchCPU(b, start)
		b.ReportMetric(float64(size)/1e6, "MB")
	})
	b.Run("decode", func(b *testing.B) {
		start := benchCPU()
		for b.Loop() {
			c, err := s.RepomapCache(ctx, root)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			if err := c.Scan(ctx, func(string, int64, int64, *repomap.FileTags) bool { n++; return true }); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(n), "rows")
		}
		reportBenchCPU(b, start)
	})
}

// BenchmarkRepomapSnapshotWarmGoSrc is a new process's start with a
// snapshot: open the store, read the root's snapshot, build (nothing to
// patch).
func BenchmarkRepomapSnapshotWarmGoSrc(b *testing.B) {
	root := benchGoSrc(b)
	ctx := context.Background()
	home := filepath.Join(b.TempDir(), "state")
	open := func() (*Store, *RepomapCache) {
		s, err := Open(ctx, home)
		if err != nil {
			b.Fatal(err)
		}
		c, err := s.RepomapCache(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		c.EnableSnapshot(nil)
		return s, c
	}
	s, c := open()
	if _, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: c}); err != nil {
		b.Fatal(err)
	}
	s.Close()
	start := benchCPU()
	for b.Loop() {
		s, c := open()
		m, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: c, Query: benchQuery})
		if err != nil {
			b.Fatal(err)
		}
		if m.Stats.Parsed != 0 {
			b.Fatalf("parsed %d", m.Stats.Parsed)
		}
		s.Close()
	}
	reportBenchCPU(b, start)
}
