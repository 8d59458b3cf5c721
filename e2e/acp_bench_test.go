package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkACPInitialize: `agent acp` from process start to its answer to
// initialize read by the editor (the real binary over pipes). Goal: ≤ 30 ms.
func BenchmarkACPInitialize(b *testing.B) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "AGENT_HOME=" + b.TempDir()}
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(agentBin, "acp")
		cmd.Env = env
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.Contains(line, `"protocolVersion":1`) {
			b.Fatalf("initialize: %q %v", line, err)
		}
		b.StopTimer()
		in.Close()
		cmd.Wait()
		b.StartTimer()
	}
}
