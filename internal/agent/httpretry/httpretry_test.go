package httpretry

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"seconds", map[string]string{"Retry-After": "12"}, 12 * time.Second, true},
		{"fraction", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"cap", map[string]string{"Retry-After": "86400"}, MaxRetryAfter, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"ms wins", map[string]string{"Retry-After-Ms": "40", "Retry-After": "5"}, 40 * time.Millisecond, true},
		{"bad ms falls back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "5"}, 5 * time.Second, true},
		{"garbage", map[string]string{"Retry-After": "later"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := RetryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	base := 100 * time.Millisecond
	for attempt := 0; attempt < 12; attempt++ {
		full := min(base<<attempt, MaxBackoff)
		for i := 0; i < 50; i++ {
			d := Backoff(base, attempt)
			if d < full/2 || d > full {
				t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, full/2, full)
			}
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true, "127.0.0.1": true, "127.9.9.9": true,
		"::1": true, "[::1]": true, "0.0.0.0": false, "10.0.0.1": false, "api.openai.com": false,
		"localhost.example.com": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
