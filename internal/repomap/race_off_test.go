//go:build !race

package repomap

const raceEnabled = false
