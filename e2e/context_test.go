package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agent/internal/replay"
)

// partServer answers like a model that follows the newest tool result: the
// turn served is 1 + the part number found in the request's last message
// (PART-N-END), else 0, so it keeps working when older rounds are folded
// away. It logs every request body and can hang once on one turn.
type partServer struct {
	turns []map[string]any
	mu    sync.Mutex
	log   [][]byte
	turn  []int // the turn each logged request got
	// hangOn is the turn to hang on once (-1: never); hung closes then.
	hangOn int
	hung   chan struct{}
}

var partRe = regexp.MustCompile(`PART-([0-9]+)-END`)

func newPartServer(t *testing.T, turns []map[string]any) (*partServer, string) {
	ps := &partServer{turns: turns, hangOn: -1, hung: make(chan struct{})}
	hs := httptest.NewServer(ps)
	t.Cleanup(hs.Close)
	return ps, hs.URL + "/v1"
}

func (ps *partServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	k := 0
	if n := len(req.Messages); n > 0 {
		if m := partRe.FindAllStringSubmatch(req.Messages[n-1].Content, -1); m != nil {
			p, _ := strconv.Atoi(m[len(m)-1][1])
			k = p + 1
		}
	}
	k = min(k, len(ps.turns)-1)
	ps.mu.Lock()
	ps.log = append(ps.log, body)
	ps.turn = append(ps.turn, k)
	hang := ps.hangOn == k
	if hang {
		ps.hangOn = -1
	}
	ps.mu.Unlock()
	if hang {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		close(ps.hung)
		<-r.Context().Done()
		return
	}
	sc, err := replay.Parse([]byte(script(ps.turns[k])))
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	sc.Lenient = true
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	srv := replay.NewServer(sc)
	defer srv.Close()
	srv.ServeHTTP(w, r)
}

// hangAt makes the request that gets turn k hang once.
func (ps *partServer) hangAt(k int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.hangOn = k
}

func (ps *partServer) requests() ([][]byte, []int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([][]byte(nil), ps.log...), append([]int(nil), ps.turn...)
}

// longRunFiles writes n files of about 3,000 tokens each, every one ending
// in its PART marker, and returns the turns that read them one by one.
func longRunFiles(t *testing.T, ws string, n int) []map[string]any {
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon")
	r := rand.New(rand.NewPCG(7, 11))
	var turns []map[string]any
	for i := 0; i < n; i++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "file %d\n", i)
		for l := 0; l < 150; l++ {
			for w := 0; w < 18; w++ {
				sb.WriteString(words[r.IntN(len(words))] + " ")
			}
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "PART-%d-END\n", i)
		p := filepath.Join(ws, "big", fmt.Sprintf("f%d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		turns = append(turns, turn(fmt.Sprintf("Reading part %d.", i), call(fmt.Sprintf("c%d", i), "read_file", map[string]any{"path": fmt.Sprintf("big/f%d.txt", i)})))
	}
	return append(turns, turn("Read them all."))
}

type ctxEvent struct {
	Type    string `json:"type"`
	Seq     int64  `json:"seq"`
	Step    int    `json:"step"`
	Trigger string `json:"trigger"`
	Context struct {
		Budget      int `json:"budget"`
		TotalTokens int `json:"total_tokens"`
		Compacted   int `json:"compacted"`
	} `json:"context"`
}

func (e *env) ctxTrace(id string) []ctxEvent {
	var evs []ctxEvent
	e.mustJSON(&evs, "trace", id, "--json")
	return evs
}

// A long run in a 16K window compacts, stays within its budget, keeps the
// person's words in every request, and, killed right after a compaction,
// resumes with a byte-identical request and no second compaction.
func TestCompactionSurvivesSIGKILL(t *testing.T) {
	const parts = 24
	canary := "CANARY-7f3a91"
	prompt := "Read every file under big/ one by one. Constraint: never edit anything; keep " + canary + " in mind."
	setup := func() (*env, []map[string]any, []string) {
		e := newEnv(t, "")
		turns := longRunFiles(t, e.ws, parts)
		xdg := t.TempDir()
		os.MkdirAll(filepath.Join(xdg, "agent"), 0o755)
		os.WriteFile(filepath.Join(xdg, "agent", "config.toml"), []byte("[context]\nwindow = 16000\n"), 0o644)
		return e, turns, []string{"XDG_CONFIG_HOME=" + xdg, "OPENAI_API_KEY=sk-test"}
	}

	// The uninterrupted reference: where does the first compaction happen?
	ref, turns, extra := setup()
	rs, url := newPartServer(t, turns)
	ref.url = url
	r := ref.runEnv(extra, "run", "--approval", "full-auto", "--max-steps", "100", prompt)
	if r.code != 0 {
		t.Fatalf("reference run: exit %d\n%s", r.code, r.stderr)
	}
	refEvents := ref.ctxTrace(runID(t, r.stderr))
	compactStep, compactions := 0, 0
	for _, ev := range refEvents {
		switch ev.Type {
		case "compaction":
			compactions++
			if compactStep == 0 {
				compactStep = ev.Step
			}
		case "model_request":
			if ev.Context.TotalTokens > ev.Context.Budget {
				t.Errorf("step %d: %d tokens over a budget of %d", ev.Step, ev.Context.TotalTokens, ev.Context.Budget)
			}
		}
	}
	if compactStep == 0 {
		t.Fatalf("a run of %d 3,000-token reads in a 16K window never compacted", parts)
	}
	bodies, _ := rs.requests()
	for i, b := range bodies {
		if !strings.Contains(string(b), canary) {
			t.Fatalf("request %d lost the person's message (its canary)", i)
		}
	}

	// The same run, killed while the request right after the first
	// compaction is in flight.
	e, turns, extra := setup()
	ps, url := newPartServer(t, turns)
	e.url = url
	ps.hangAt(compactStep - 1) // step s is answered with turn s-1
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--json", "--approval", "full-auto", "--max-steps", "100", prompt)
	cmd.Env = e.environ(extra...)
	cmd.Dir = e.ws
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
		}
	}()
	select {
	case <-ps.hung:
	case <-ctx.Done():
		t.Fatal("the request after the compaction never came")
	}
	cmd.Process.Signal(syscall.SIGKILL) // the agent alone, not its group
	cmd.Wait()
	id := runID(t, stderr.String())
	before := e.ctxTrace(id)
	last := before[len(before)-1]
	if last.Type != "model_request" || last.Step != compactStep || last.Context.Compacted == 0 {
		t.Fatalf("the journal of the killed run ends with %+v, want the model_request of step %d right after a compaction", last, compactStep)
	}
	r = e.runEnv(extra, "resume", id, "--headless")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	bodies, served := ps.requests()
	hungAt := -1
	for i, k := range served {
		if k == compactStep-1 {
			hungAt = i
			break
		}
	}
	if hungAt < 0 || hungAt+1 >= len(bodies) {
		t.Fatalf("no request after the hung one (%d requests)", len(bodies))
	}
	if string(bodies[hungAt]) != string(bodies[hungAt+1]) {
		t.Errorf("the resumed run's first request differs from the one in flight at the crash:\n before %d bytes\n after  %d bytes", len(bodies[hungAt]), len(bodies[hungAt+1]))
	}
	n := 0
	for _, ev := range e.ctxTrace(id) {
		if ev.Type == "compaction" {
			n++
		}
	}
	if n != compactions {
		t.Errorf("the crashed and resumed run journaled %d compactions, the uninterrupted one %d: a compaction was redone or lost", n, compactions)
	}
}

// A request that names an identifier carries the repo map with the file
// that defines it.
func TestRepoMapInRequest(t *testing.T) {
	e := newEnv(t, script(turn("It reads the widget configuration.")))
	os.MkdirAll(filepath.Join(e.ws, "internal", "widget"), 0o755)
	for i := 0; i < 20; i++ {
		os.WriteFile(filepath.Join(e.ws, "internal", "widget", fmt.Sprintf("h%d.go", i)), []byte(fmt.Sprintf("package widget\n\n// Helper%d does a small thing.\nfunc Helper%d(x int) int { return x + %d }\n", i, i, i)), 0o644)
	}
	os.WriteFile(filepath.Join(e.ws, "internal", "widget", "config.go"), []byte("package widget\n\n// parseWidgetConfig reads a widget configuration.\nfunc parseWidgetConfig(b []byte) (map[string]string, error) { return nil, nil }\n"), 0o644)
	r := e.run("run", "--approval", "read-only", "How does parseWidgetConfig work?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	i := strings.Index(body, "repo_map")
	if i < 0 || !strings.Contains(body[i:], "internal/widget/config.go") || !strings.Contains(body[i:], "parseWidgetConfig") {
		t.Errorf("the request carries no repo map with internal/widget/config.go:\n%.2000s", body)
	}
}

// agent repomap keeps its tag cache and snapshot in $AGENT_HOME redacted,
// as a run does: a secret in a constant's signature is not on disk.
func TestRepomapCacheRedacted(t *testing.T) {
	e := newEnv(t, "")
	secret := "ghp_" + "Zq8vT3kLm9Xw2Rb7Nc4Hd6Jf1Gs5Pa0Ye3Ui"
	os.WriteFile(filepath.Join(e.ws, "tok.go"), []byte("package main\n\nconst Token = \""+secret+"\"\n"), 0o644)
	for i := 0; i < 2; i++ { // cold (rows and snapshot written), then warm
		if r := e.run("repomap", "-C", e.ws); r.code != 0 {
			t.Fatalf("repomap: exit %d\n%s", r.code, r.stderr)
		}
	}
	filepath.WalkDir(e.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret in plain text", p)
			}
		}
		return nil
	})
}
