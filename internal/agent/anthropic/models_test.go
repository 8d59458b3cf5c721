package anthropic

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ListModels pages through GET /v1/models with the key and version
// headers.
func TestListModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("x-api-key") != "k" || r.Header.Get("anthropic-version") == "" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		if r.URL.Query().Get("after_id") == "" {
			w.Write([]byte(`{"data":[{"id":"claude-b"}],"has_more":true,"last_id":"claude-b"}`))
			return
		}
		w.Write([]byte(`{"data":[{"id":"claude-a"}],"has_more":false,"last_id":"claude-a"}`))
	}))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL, APIKey: "k", Model: "claude-a"})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.ListModels(context.Background())
	if err != nil || strings.Join(ms, ",") != "claude-a,claude-b" {
		t.Fatalf("ListModels = %v, %v", ms, err)
	}
}
