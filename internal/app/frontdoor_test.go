package app

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// frontends are the packages that must reach the runtime only through
// app, protocol and event: the CLI, the TUI and the editors' ACP server.
var frontends = []string{"agent/cmd/...", "agent/internal/tui/...", "agent/internal/acp/..."}

// behindTheDoor are the packages only app may import.
var behindTheDoor = map[string]bool{
	"agent/internal/store":      true,
	"agent/internal/checkpoint": true,
	"agent/internal/agent":      true,
}

// TestFrontendsUseTheFrontDoor lists the direct imports of every frontend
// package and fails on one that imports the store, the shadow repository
// or the loop.
func TestFrontendsUseTheFrontDoor(t *testing.T) {
	args := append([]string{"list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, frontends...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkgs++
		for _, imp := range f[1:] {
			if !behindTheDoor[imp] {
				continue
			}
			bad = append(bad, f[0]+" "+imp)
		}
	}
	if pkgs < 10 {
		t.Fatalf("go list found %d frontend packages; the patterns %v match too little:\n%s", pkgs, frontends, out)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: a frontend imports the runtime directly; go through app (app.Home, Service, Run), protocol and event", b)
	}
}
