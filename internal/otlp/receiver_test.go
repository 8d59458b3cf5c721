package otlp_test

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP traces receiver that decodes every request with
// the official OTLP protobuf types.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	spans    []*tracepb.Span
	res      []*commonpb.KeyValue
	bodies   [][]byte
	hold     chan struct{} // when set, requests wait for it to close
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	hold := r.hold
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return
		}
	}
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		r.t.Errorf("request %s %s (%s)", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		r.t.Errorf("read body: %v", err)
		return
	}
	var msg coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		r.t.Errorf("the body is not an ExportTraceServiceRequest: %v", err)
		http.Error(w, "bad protobuf", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.requests++
	r.bodies = append(r.bodies, body)
	for _, rs := range msg.GetResourceSpans() {
		r.res = rs.GetResource().GetAttributes()
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *receiver) got() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// attrs renders a span's attributes as strings (lists joined by |).
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = anyString(kv.GetValue())
	}
	return out
}

func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_ArrayValue:
		s := ""
		for i, e := range x.ArrayValue.GetValues() {
			if i > 0 {
				s += "|"
			}
			s += anyString(e)
		}
		return s
	}
	return "?"
}

func hexID(b []byte) string { return hex.EncodeToString(b) }
