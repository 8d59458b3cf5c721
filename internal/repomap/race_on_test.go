//go:build race

package repomap

// raceEnabled: the race detector slows go/parser ~10x; the whole-GOROOT
// comparison runs in `make test`'s pure-Go pass instead.
const raceEnabled = true
