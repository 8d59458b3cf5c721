//go:build !unix

package demo

import (
	"errors"
	"os"
)

var errNotUnix = errors.New("agent demo needs Linux or macOS: it uses a FIFO, POSIX signals and process groups")

func mkfifo(string) error { return errNotUnix }

func openReaderNonblock(string) (*os.File, error) { return nil, errNotUnix }

func rawInput(*os.File) (func(), error) { return nil, errNotUnix }
