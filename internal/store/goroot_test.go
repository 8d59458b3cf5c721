package store

import (
	"os/exec"
	"strings"
)

// goroot is the Go installation the tests read as a large real tree: the
// go command's own answer, not the build-time runtime.GOROOT.
func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
