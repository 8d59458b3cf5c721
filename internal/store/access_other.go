//go:build !unix

package store

// canWrite is true where access(2) is not available: Open then reports
// what cannot be written.
var canWrite = func(string) bool { return true }
