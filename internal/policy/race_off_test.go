//go:build !race

package policy

const slowFactor = 1
