package redact

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkLiveWriterLogs: 235 KB of log lines in 7-byte writes, through
// the batch and the live writer: structured text must not cost the live
// one a scan per write.
func BenchmarkLiveWriterLogs(b *testing.B) {
	r := New(Config{Key: testKey})
	var sb strings.Builder
	for i := 0; i < 3500; i++ {
		fmt.Fprintf(&sb, "2025-03-14T09:26:53Z INFO worker=%d processed batch key=value%d\n", i, i)
	}
	doc := sb.String()
	for _, wk := range writerKinds {
		b.Run(wk.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				w := wk.new(r, io.Discard)
				for j := 0; j < len(doc); j += 7 {
					w.Write([]byte(doc[j:min(j+7, len(doc))]))
				}
				w.Close()
			}
		})
	}
}
