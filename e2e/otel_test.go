package e2e

import (
	"bytes"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP traces receiver decoding with the official
// OTLP protobuf types.
type otlpReceiver struct {
	t      *testing.T
	url    string
	mu     sync.Mutex
	spans  []*tracepb.Span
	bodies [][]byte
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{t: t}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var msg coltrace.ExportTraceServiceRequest
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP request to %s as %s", req.URL.Path, req.Header.Get("Content-Type"))
		}
		if err := proto.Unmarshal(body, &msg); err != nil {
			t.Errorf("not an ExportTraceServiceRequest: %v", err)
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		for _, rs := range msg.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *otlpReceiver) take() ([]*tracepb.Span, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	spans, all := r.spans, bytes.Join(r.bodies, nil)
	r.spans, r.bodies = nil, nil
	return spans, all
}

func kv(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, a := range kvs {
		m[a.Key] = a.Value
	}
	return m
}

// everyString is every string a span carries: name, attribute values,
// event names and attributes, status message.
func everyString(s *tracepb.Span) []string {
	out := []string{s.Name, s.GetStatus().GetMessage()}
	var add func(v *commonpb.AnyValue)
	add = func(v *commonpb.AnyValue) {
		out = append(out, v.GetStringValue())
		for _, e := range v.GetArrayValue().GetValues() {
			add(e)
		}
	}
	for _, a := range s.Attributes {
		add(a.Value)
	}
	for _, e := range s.Events {
		out = append(out, e.Name)
		for _, a := range e.Attributes {
			add(a.Value)
		}
	}
	return out
}

// otelWorld is a workspace with planted secrets and a user config that
// sends traces to url.
func otelWorld(t *testing.T, url string, content bool) (*env, []string, []string) {
	t.Helper()
	dotenv := "tok_live_" + rs(b62, 24)
	envTok := "sk_live_" + rs(b62, 32)
	e := newEnv(t, script(
		turn("", call("c1", "read_file", map[string]any{"path": ".env"})),
		turn("", call("c2", "edit_file", map[string]any{"path": "main.go", "old_string": "Hello", "new_string": "Hello, world"}),
			call("c3", "run_command", map[string]any{"command": "echo $MY_SERVICE_TOKEN; exit 3"})),
		turn("The key in .env is "+dotenv+" and the token is "+envTok),
	))
	if err := os.WriteFile(filepath.Join(e.ws, ".env"), []byte("API_KEY="+dotenv+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[otel]\nendpoint = \"" + url + "\"\n"
	if content {
		cfg += "content = true\n"
	}
	if err := os.WriteFile(filepath.Join(xdg, "agent", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, []string{"XDG_CONFIG_HOME=" + xdg, "MY_SERVICE_TOKEN=" + envTok}, []string{dotenv, envTok}
}

// A scripted run's trace reaches an OTLP/HTTP receiver as it runs: one
// trace, the run's span with a chat span per model request and an
// execute_tool span per call under it, GenAI attributes, and no planted
// secret anywhere, though prompt and output text is on. agent export
// --otlp sends the same spans again, and both are in the audit log.
func TestOTLPTraceOfARun(t *testing.T) {
	rcv := newOTLPReceiver(t)
	e, extra, secrets := otelWorld(t, rcv.url, true)
	r := e.runEnv(extra, "run", "--model", "fake-model", "--approval", "full-auto", "change the greeting; the key is "+secrets[1])
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("warnings with a receiver that is up:\n%s", r.stderr)
	}
	spans, raw := rcv.take()

	traces := map[string]bool{}
	byID := map[string]*tracepb.Span{}
	var root *tracepb.Span
	names := map[string]int{}
	for _, s := range spans {
		traces[hex.EncodeToString(s.TraceId)] = true
		byID[hex.EncodeToString(s.SpanId)] = s
		names[s.Name]++
		if len(s.ParentSpanId) == 0 {
			root = s
		}
	}
	if len(traces) != 1 || root == nil || len(spans) != 7 {
		t.Fatalf("%d traces, %d spans %v, root %v", len(traces), len(spans), names, root)
	}
	if names["invoke_agent agent"] != 1 || names["chat fake-model"] != 3 || names["execute_tool read_file"] != 1 ||
		names["execute_tool edit_file"] != 1 || names["execute_tool run_command"] != 1 {
		t.Errorf("span names %v", names)
	}
	for _, s := range spans {
		if s != root && hex.EncodeToString(s.ParentSpanId) != hex.EncodeToString(root.SpanId) {
			t.Errorf("%s is not a child of the run's span", s.Name)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano || s.StartTimeUnixNano < root.StartTimeUnixNano || s.EndTimeUnixNano > root.EndTimeUnixNano {
			t.Errorf("%s: times outside the run's", s.Name)
		}
		a := kv(s.Attributes)
		switch op := a["gen_ai.operation.name"].GetStringValue(); op {
		case "invoke_agent":
			if a["gen_ai.conversation.id"].GetStringValue() != id || a["agent.run.status"].GetStringValue() != "completed" ||
				a["gen_ai.usage.input_tokens"].GetIntValue() != 300 {
				t.Errorf("run span %v", a)
			}
		case "chat":
			if a["gen_ai.request.model"].GetStringValue() != "fake-model" || a["gen_ai.provider.name"].GetStringValue() == "" ||
				a["gen_ai.usage.input_tokens"].GetIntValue() != 100 || a["gen_ai.usage.output_tokens"].GetIntValue() != 10 ||
				s.Kind != tracepb.Span_SPAN_KIND_CLIENT || a["gen_ai.output.messages"] == nil {
				t.Errorf("chat span %v", a)
			}
		case "execute_tool":
			if a["gen_ai.tool.call.id"].GetStringValue() == "" || a["agent.tool.status"] == nil || a["gen_ai.tool.call.result"] == nil {
				t.Errorf("%s: %v", s.Name, a)
			}
			if s.Name == "execute_tool edit_file" {
				ev := map[string]int{}
				for _, x := range s.Events {
					ev[x.Name]++
				}
				if ev["approval"] != 1 || ev["checkpoint"] != 2 { // before and after
					t.Errorf("edit_file events %v", ev)
				}
			}
			if s.Name == "execute_tool run_command" && (a["agent.tool.exit_code"].GetIntValue() != 3 ||
				s.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || s.GetStatus().GetMessage() != "exit code 3") {
				t.Errorf("run_command span %v %v", a, s.Status)
			}
		default:
			t.Errorf("%s: operation %q", s.Name, op)
		}
	}
	// the text is there, redacted
	if !strings.Contains(kv(root.Attributes)["gen_ai.output.messages"].GetStringValue(), "The key in .env is [REDACTED:") {
		t.Errorf("the answer is not in the trace, redacted: %v", kv(root.Attributes)["gen_ai.output.messages"])
	}
	for _, sec := range secrets {
		if bytes.Contains(raw, []byte(sec)) {
			t.Errorf("planted secret %s… reached the receiver", sec[:10])
		}
		for _, s := range spans {
			for _, str := range everyString(s) {
				if strings.Contains(str, sec) {
					t.Errorf("%s carries planted secret %s…", s.Name, sec[:10])
				}
			}
		}
	}

	// later, by hand: the same spans, by id
	x := e.runEnv(extra, "export", id, "--otlp", rcv.url)
	if x.code != 0 || !strings.Contains(x.stderr, "exported run "+id+": 7 spans, with prompt and output text, to "+rcv.url+"/v1/traces") {
		t.Fatalf("export: exit %d\n%s", x.code, x.stderr)
	}
	again, raw := rcv.take()
	if len(again) != len(spans) {
		t.Fatalf("export sent %d spans, the live export %d", len(again), len(spans))
	}
	for _, s := range again {
		if live := byID[hex.EncodeToString(s.SpanId)]; live == nil || live.Name != s.Name {
			t.Errorf("exported span %s (%x) was not sent live", s.Name, s.SpanId)
		}
	}
	for _, sec := range secrets {
		if bytes.Contains(raw, []byte(sec)) {
			t.Errorf("planted secret %s… reached the receiver through agent export", sec[:10])
		}
	}

	var audit []struct{ Action, Detail string }
	e.mustJSON(&audit, "audit", "--run", id, "--json")
	var exports []string
	for _, a := range audit {
		if a.Action == "export" {
			exports = append(exports, a.Detail)
		}
	}
	all := strings.Join(exports, "\n")
	if len(exports) != 3 || !strings.Contains(all, "live, as the run goes") || !strings.Contains(all, "live export done: 7 spans sent") ||
		!strings.Contains(all, ": 7 spans, with prompt and output text ([otel] content = true") {
		t.Errorf("audit rows of the exports:\n%s", all)
	}
}

// With the receiver down the run completes as if nothing were configured,
// with one warning; the audit log says the spans were not delivered.
func TestOTLPReceiverDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	e, extra, _ := otelWorld(t, url, false)
	r := e.runEnv(extra, "run", "--model", "fake-model", "--approval", "full-auto", "change the greeting")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "agent: warning:"); n != 1 || !strings.Contains(r.stderr, "could not be sent over OTLP") {
		t.Errorf("%d warnings:\n%s", n, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "main.go")); !strings.Contains(got, "Hello, world") {
		t.Errorf("the run did not do its work: %s", got)
	}
	id := runID(t, r.stderr)
	var audit []struct{ Action, Detail string }
	e.mustJSON(&audit, "audit", "--run", id, "--json")
	found := false
	for _, a := range audit {
		found = found || a.Action == "export" && strings.Contains(a.Detail, "0 spans sent, 7 not delivered")
	}
	if !found {
		t.Errorf("no audit row says the trace was not delivered: %+v", audit)
	}
	// and agent export --otlp to it is a failure naming the receiver
	x := e.runEnv(extra, "export", id, "--otlp", url)
	if x.code != 1 || !strings.Contains(x.stderr, url+"/v1/traces") || !strings.Contains(x.stderr, "connection refused") {
		t.Errorf("export to a dead receiver: exit %d\n%s", x.code, x.stderr)
	}
	if x := e.runEnv(extra, "export", id, "--otlp", "localhost:4318"); x.code != 2 || !strings.Contains(x.stderr, "http://127.0.0.1:4318") {
		t.Errorf("a bad URL: exit %d\n%s", x.code, x.stderr)
	}
	if x := e.runEnv(extra, "export", id, "-o", filepath.Join(t.TempDir(), "r.jsonl"), "--otlp", url); x.code != 2 || !strings.Contains(x.stderr, "not both") {
		t.Errorf("-o and --otlp: exit %d\n%s", x.code, x.stderr)
	}
}
