package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkResume1000Events: `agent resume` of a run with about 1,000
// events, from process start to its first model request arriving at the
// server (the real binary, a real SQLite journal). Goal: ≤ 100 ms.
func BenchmarkResume1000Events(b *testing.B) {
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644)
	home := filepath.Join(b.TempDir(), "state")
	var turns []map[string]any
	for i := 0; i < 250; i++ { // 4 events a step
		turns = append(turns, turn("", call("c"+itoa(i), "list_dir", map[string]any{})))
	}
	turns = append(turns, turn("done"))
	scriptFile := filepath.Join(b.TempDir(), "s.json")
	os.WriteFile(scriptFile, []byte(script(turns...)), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "AGENT_HOME=" + home}
	run := exec.Command(agentBin, "run", "-C", ws, "--replay", scriptFile, "--max-steps", "250", "--approval", "read-only", "list forever")
	run.Env = env
	out, _ := run.CombinedOutput()
	id := ""
	if len(out) > 5 {
		id = string(out[5:28])
	}
	if run.ProcessState.ExitCode() != 1 || id == "" {
		b.Fatalf("setup run: exit %d\n%s", run.ProcessState.ExitCode(), out)
	}
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		// Answer with an error the agent does not retry: the run stops there.
		http.Error(w, `{"error":{"message":"benchmark stop","type":"invalid_request_error"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	env = append(env, "OPENAI_BASE_URL="+srv.URL+"/v1")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, agentBin, "resume", id)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			b.Fatal("no model request")
		}
		b.StopTimer()
		cmd.Wait()
		cancel()
		b.StartTimer()
	}
}
