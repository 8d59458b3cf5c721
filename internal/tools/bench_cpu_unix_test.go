//go:build unix

package tools

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: unlike ns/op, it does not
// count the time spent waiting for fsync on a shared, busy disk.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-µs/op metric for the loop that started at start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e3, "cpu-µs/op")
}
