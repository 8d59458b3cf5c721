package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ListModels reads GET /models with the key, sorted; an endpoint without
// the list is an error naming the status.
func TestListModels(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		w.Write([]byte(`{"object":"list","data":[{"id":"zeta"},{"id":"alpha"},{"id":""}]}`))
	}))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: "sk-x", Model: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.ListModels(context.Background())
	if err != nil || strings.Join(ms, ",") != "alpha,zeta" || auth != "Bearer sk-x" {
		t.Fatalf("ListModels = %v, %v (auth %q)", ms, err, auth)
	}
	q, _ := New(Config{BaseURL: srv.URL + "/other", APIKey: "sk-x", Model: "alpha"})
	if _, err := q.ListModels(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("no list: %v", err)
	}
}
