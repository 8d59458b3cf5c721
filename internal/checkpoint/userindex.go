package checkpoint

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// userIndex is the workspace's own git index, decoded read-only. Where it
// records a file with the same stat data, the blob id it holds saves
// hashing the file. Anything in the workspace may have written it, so it is
// consulted only by a cold scan of a before-checkpoint (no stat cache at
// all: the first snapshot of a workspace), never by a scan after a command
// or an MCP tool; and never when a clean/smudge filter, an eol conversion or
// autocrlf could make the indexed blob differ from the bytes on disk.
type userIndex struct {
	sig     fileSig
	mtime   int64
	byName  map[string]*index.Entry
	trusted bool
	slack   time.Duration // the racy slack of the workspace's file system
}

// attrKeywords are attributes that make the index blob differ from the file.
var attrKeywords = [][]byte{[]byte("filter"), []byte("text"), []byte("eol"), []byte("crlf"), []byte("ident"), []byte("working-tree-encoding")}

func unsafeAttributes(data []byte) bool {
	for _, k := range attrKeywords {
		if bytes.Contains(data, k) {
			return true
		}
	}
	return false
}

// loadUserIndex returns the decoded user index, reusing the previous decode
// while the index file is unchanged; nil if there is none or it is unusable.
func (s *Store) loadUserIndex() *userIndex {
	gd := s.userGitDir()
	if gd == "" {
		return nil
	}
	p := filepath.Join(gd, "index")
	var st fileStat
	if err := lstatPath(p, &st); err != nil || !st.isRegular() {
		s.uidx = nil
		return nil
	}
	if s.uidx != nil && s.uidx.sig == st.sig() {
		return s.uidx
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(bufio.NewReaderSize(f, 1<<16)).Decode(&idx); err != nil {
		return nil
	}
	u := &userIndex{sig: st.sig(), mtime: st.mtime, byName: make(map[string]*index.Entry, len(idx.Entries)), trusted: s.userConfigTrusted(gd), slack: s.slack}
	for _, e := range idx.Entries {
		u.byName[e.Name] = e
	}
	s.uidx = u
	return u
}

// userConfigTrusted is false when git configuration or info/attributes may
// convert file contents on their way into the index.
func (s *Store) userConfigTrusted(gitDir string) bool {
	if b, err := os.ReadFile(filepath.Join(gitDir, "info", "attributes")); err == nil && unsafeAttributes(b) {
		return false
	}
	files := []string{filepath.Join(gitDir, "config"), "/etc/gitconfig"}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(bytes.ToLower(b), []byte("autocrlf")) {
			return false
		}
	}
	return true
}

// lookup returns the blob id the index records for path if the file's stat
// data matches the entry exactly and the entry is not racy.
func (u *userIndex) lookup(path string, st *fileStat, mode filemode.FileMode) (plumbing.Hash, bool) {
	if u == nil || !u.trusted {
		return plumbing.ZeroHash, false
	}
	e := u.byName[path]
	if e == nil || e.Stage != 0 /* go-git's index.Merged is 1, but merged entries have stage 0 */ || e.IntentToAdd || e.SkipWorktree || e.Mode != mode {
		return plumbing.ZeroHash, false
	}
	if int64(e.Size) != st.size&0xffffffff || e.ModifiedAt.UnixNano() != st.mtime {
		return plumbing.ZeroHash, false
	}
	if st.ctime != 0 && e.CreatedAt.UnixNano() != st.ctime {
		return plumbing.ZeroHash, false
	}
	if e.Inode != 0 && st.ino != 0 && e.Inode != uint32(st.ino) {
		return plumbing.ZeroHash, false
	}
	if st.mtime >= u.mtime-u.slack.Nanoseconds() {
		return plumbing.ZeroHash, false // racy: may have changed after the index was written
	}
	return e.Hash, true
}
