package greet

import "testing"

func TestGreeting(t *testing.T) {
	if got := Greeting("Ada"); got != "Hello, Ada!" {
		t.Fatalf("Greeting(Ada) = %q", got)
	}
}
