package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"agent/internal/event"
)

// ReadFile is the read_file tool: a text file's lines, numbered like cat -n.
type ReadFile struct{}

const (
	readDefaultLimit = 2000 // lines shown when the call gives no limit
	readMaxLineLen   = 2000 // characters of one line shown
)

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (ReadFile) Name() string     { return "read_file" }
func (ReadFile) Risk() event.Risk { return event.RiskRead }
func (ReadFile) Description() string {
	return "Read a text file of the workspace. Lines are numbered from 1, like `cat -n`. " +
		"By default up to 2000 lines from the start; use offset (1-based first line) and limit (number of lines) " +
		"to read a part of a long file. Very long lines are shortened; binary files are reported, not shown. " +
		"Paths are relative to the workspace."
}

func (ReadFile) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"path":   strField("File path, relative to the workspace."),
		"offset": intField("First line to read, 1-based (default 1).", ptr(1), nil),
		"limit":  intField("Maximum number of lines to read (default 2000).", ptr(1), nil),
	}, "path")
}

func (t ReadFile) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a readFileArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	if err := checkEnv(t.Name(), env); err != nil {
		return Result{}, err
	}
	if a.Path == "" {
		return Result{}, &ArgError{Tool: t.Name(), Field: "path", Problem: `missing required field "path"`}
	}
	if a.Offset < 0 || a.Limit < 0 {
		return Result{}, &ArgError{Tool: t.Name(), Problem: "offset and limit must be positive"}
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = readDefaultLimit
	}
	root, err := env.openRoot()
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %w", err)
	}
	_, rel, err := Resolve(env.Workspace, a.Path)
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %w", err)
	}
	out, err := readLines(root, rel, a.Offset, a.Limit, MaxOutput-200)
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %w", confined(env.Workspace, a.Path, err))
	}
	return Result{Output: out}, nil
}

// readLines renders lines [offset, offset+limit) of the file rel beneath
// root, numbered, stopping early when the output would exceed budget
// characters.
func readLines(root *os.Root, rel string, offset, limit, budget int) (string, error) {
	f, fi, err := OpenRegular(root, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: file not found: %w", rel, fs.ErrNotExist)
	case errors.Is(err, errIsDir):
		return "", fmt.Errorf("%s is a directory; use list_dir to see its entries", rel)
	case err != nil:
		return "", err
	}
	defer f.Close()
	if fi.Size() == 0 {
		return fmt.Sprintf("%s: (empty file)", rel), nil
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if isBinary(head) {
		return binaryNote(rel, fi.Size()), nil
	}

	var b strings.Builder
	n := 0       // lines read so far
	last := 0    // last line shown
	stopped := 0 // the line that did not fit the budget, if any
	for {
		if n+1 < offset || stopped != 0 || n+1 >= offset+limit {
			// Outside the range shown: count the line without keeping it.
			more, err := skipLine(br)
			if err != nil && !errors.Is(err, io.EOF) {
				return "", err
			}
			if more {
				n++
			}
			if errors.Is(err, io.EOF) {
				break
			}
			continue
		}
		line, err := readLine(br, readMaxLineLen)
		if errors.Is(err, io.EOF) && line == nil {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		n++
		if n >= offset && n < offset+limit && stopped == 0 {
			text := strings.ToValidUTF8(strings.TrimSuffix(string(line), "\r"), "\uFFFD")
			entry := fmt.Sprintf("%6d\t%s\n", n, text)
			if b.Len()+len(entry) > budget && last > 0 {
				stopped = n
			} else {
				b.WriteString(entry)
				last = n
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if offset > n {
		return "", fmt.Errorf("offset %d is past the end of %s (%d lines)", offset, rel, n)
	}
	if last < n {
		fmt.Fprintf(&b, "[lines %d-%d of %d shown; read on with offset=%d]\n", offset, last, n, last+1)
	}
	return b.String(), nil
}

// readLine returns the next line without its "\n", shortened to max
// characters (with a note) when longer. At the end it returns (nil, io.EOF);
// a last line without "\n" comes with io.EOF.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	total := 0
	for {
		chunk, err := br.ReadSlice('\n')
		total += len(chunk)
		if len(line) < max*utf8.UTFMax {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && len(line) == 0 {
			return nil, err
		}
		line = trimNewline(line)
		if err == nil {
			total-- // the "\n"
		}
		if utf8.RuneCount(line) > max {
			cut := line[:byteOffset(string(line), max)]
			line = append(append([]byte(nil), cut...), fmt.Sprintf(" … [line shortened, %d bytes]", total)...)
		}
		return line, err
	}
}

// skipLine consumes the next line; it reports whether there was one.
func skipLine(br *bufio.Reader) (bool, error) {
	seen := false
	for {
		chunk, err := br.ReadSlice('\n')
		seen = seen || len(chunk) > 0
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return seen, err
	}
}

func trimNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b[:len(b)-1]
	}
	return b
}
