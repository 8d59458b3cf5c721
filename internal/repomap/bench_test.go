package repomap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The benchmarks map the Go standard library's src (GOROOT/src):
//
//	go test -run '^$' -bench . -benchtime 3x ./internal/repomap/
//
// BenchmarkColdGoSrc parses everything with an empty cache, BenchmarkWarmGoSrc
// rebuilds after touching one file with a warm cache (a new Builder each
// time, as the one-shot command does), BenchmarkBuilderRefreshGoSrc does the
// same with one Builder (a refresh inside a run), BenchmarkFileCacheGoSrc
// starts from the gob file cache as a new process would, and
// BenchmarkCtagsGoSrc runs `ctags -R` on the same tree as a baseline
// (skipped without ctags).

// cpuTime is the process's user+system CPU time: the figure that does not
// depend on how busy the shared machine is.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ms/op metric for the loop that started at start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func goSrc(b *testing.B) string {
	dir := filepath.Join(goroot(), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no GOROOT/src: %v", err)
	}
	return dir
}

func BenchmarkColdGoSrc(b *testing.B) {
	root := goSrc(b)
	start := cpuTime()
	for b.Loop() {
		m, err := Build(context.Background(), Options{Root: root, Cache: NewMemCache(), Query: "why does ServeMux reject this path?"})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.Stats.Files), "files")
	}
	reportCPU(b, start)
}

func BenchmarkWarmGoSrc(b *testing.B) {
	root := goSrc(b)
	cache := NewMemCache()
	opts := Options{Root: root, Cache: cache, Query: "why does ServeMux reject this path?"}
	if _, err := Build(context.Background(), opts); err != nil {
		b.Fatal(err)
	}
	// Touching a file of GOROOT is not ours to do: drop its cache entry
	// instead, which is what a changed size or mtime amounts to.
	touched := filepath.Join(root, "net", "http", "server.go")
	info, err := os.Stat(touched)
	if err != nil {
		b.Skip(err)
	}
	parsed := 0
	start := cpuTime()
	for b.Loop() {
		cache.Put(touched, info.Size(), info.ModTime().UnixNano()+1, nil) // stale key
		m, err := Build(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		parsed = m.Stats.Parsed
	}
	reportCPU(b, start)
	b.ReportMetric(float64(parsed), "parsed")
}

func BenchmarkCtagsGoSrc(b *testing.B) {
	root := goSrc(b)
	ctags, err := exec.LookPath("ctags")
	if err != nil {
		b.Skip("ctags not installed")
	}
	out := filepath.Join(b.TempDir(), "tags")
	var children time.Duration
	for b.Loop() {
		var ru syscall.Rusage
		cmd := exec.Command(ctags, "-R", "--languages=Go", "--exclude=testdata", "--exclude=vendor", "-f", out, root)
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("ctags: %v: %s", err, msg)
		}
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			ru = *u
			children += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	b.ReportMetric(float64(children)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkFileCacheGoSrc is a new process's warm start: open the gob
// cache file (decode every entry) and build.
func BenchmarkFileCacheGoSrc(b *testing.B) {
	root := goSrc(b)
	path := filepath.Join(b.TempDir(), "tags.gob")
	c, err := OpenFileCache(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Build(context.Background(), Options{Root: root, Cache: c}); err != nil {
		b.Fatal(err)
	}
	start := cpuTime()
	for b.Loop() {
		c, err := OpenFileCache(path)
		if err != nil {
			b.Fatal(err)
		}
		m, err := Build(context.Background(), Options{Root: root, Cache: c, Query: "why does ServeMux reject this path?"})
		if err != nil {
			b.Fatal(err)
		}
		if m.Stats.Parsed != 0 {
			b.Fatalf("parsed %d", m.Stats.Parsed)
		}
	}
	reportCPU(b, start)
}

// BenchmarkBuilderRefreshGoSrc is a refresh inside a long-lived process:
// one Builder, one file changed per build (its entry dropped from the
// Builder's index and its cache key made stale, which is what a new mtime
// amounts to). The builds read nothing else from the cache.
func BenchmarkBuilderRefreshGoSrc(b *testing.B) {
	root := goSrc(b)
	cache := NewMemCache()
	bl := new(Builder)
	opts := Options{Root: root, Cache: cache, Query: "why does ServeMux reject this path?"}
	if _, err := bl.Build(context.Background(), opts); err != nil {
		b.Fatal(err)
	}
	touched := filepath.Join(root, "net", "http", "server.go")
	info, err := os.Stat(touched)
	if err != nil {
		b.Skip(err)
	}
	parsed := 0
	start := cpuTime()
	for b.Loop() {
		delete(bl.roots[root].files, touched)
		cache.Put(touched, info.Size(), info.ModTime().UnixNano()+1, nil)
		m, err := bl.Build(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		parsed = m.Stats.Parsed
	}
	reportCPU(b, start)
	b.ReportMetric(float64(parsed), "parsed")
}
