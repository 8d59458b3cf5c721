package policy

import (
	"fmt"
	"strings"
	"testing"
)

// longChain: 50 simple commands joined by &&, with pipes, $(...) and
// backticks, about 2.5 kB.
func longChain() string {
	parts := make([]string, 0, 50)
	for i := 0; len(parts) < 50; i++ {
		switch i % 5 {
		case 0:
			parts = append(parts, fmt.Sprintf("go test -run 'Test%d' ./internal/pkg%d/...", i, i))
		case 1:
			parts = append(parts, fmt.Sprintf("ls -la dir%d | grep -v tmp", i))
		case 2:
			parts = append(parts, fmt.Sprintf("grep -rn \"func $(ls dir%d | head -n 1)\" src", i))
		case 3:
			parts = append(parts, fmt.Sprintf("git log --oneline -n `ls | wc -l` -- file%d.go", i))
		case 4:
			parts = append(parts, fmt.Sprintf("FOO=%d go vet ./cmd/%d 2>/dev/null", i, i))
		}
	}
	return strings.Join(parts, " && ")
}

func BenchmarkDecideLongChain(b *testing.B) {
	p := mustPolicy(b, ModeAsk,
		[]string{"run_command(go test *)", "run_command(go vet *)", "run_command(ls *)", "run_command(grep *)",
			"run_command(git log *)", "run_command(head *)", "run_command(wc *)"},
		[]string{"run_command(rm *)", "run_command(git push *)", "read_file(.env)", "write_file(go.mod)"})
	c := cmdCall(longChain())
	if d := p.Decide(c); d.Action != Allow {
		b.Fatalf("%s: %s", d.Action, d.Reason)
	}
	b.SetBytes(int64(len(c.Command)))
	b.ReportAllocs()
	for b.Loop() {
		p.Decide(c)
	}
}
