package redact

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"agent/internal/atomicfile"
)

// KeySize is the size of the fingerprint key.
const KeySize = 32

// keyForms are the encodings of the key a command could print (hex,
// base64, and xxd -p's first line of 30 bytes): each is a known secret of
// kind redact-key.
func keyForms(key []byte) []string {
	h := hex.EncodeToString(key)
	return []string{
		h, strings.ToUpper(h), h[:min(len(h), 60)],
		base64.StdEncoding.EncodeToString(key), base64.RawStdEncoding.EncodeToString(key),
		base64.URLEncoding.EncodeToString(key), base64.RawURLEncoding.EncodeToString(key),
	}
}

// fingerprint returns the first 8 hex chars of HMAC-SHA256(key, secret).
func (r *Redactor) fingerprint(secret []byte) string {
	var buf [8]byte
	return string(r.appendFingerprint(buf[:0], secret))
}

func (r *Redactor) appendFingerprint(dst, secret []byte) []byte {
	m := hmac.New(sha256.New, r.key)
	m.Write(secret)
	var sum [sha256.Size]byte
	return hex.AppendEncode(dst, m.Sum(sum[:0])[:4])
}

func (r *Redactor) appendPlaceholder(dst []byte, kind string, secret []byte) []byte {
	dst = append(dst, "[REDACTED:"...)
	dst = append(dst, kind...)
	dst = append(dst, ':')
	dst = r.appendFingerprint(dst, secret)
	return append(dst, ']')
}

// Placeholder returns the placeholder that replaces secret as kind. Equal
// secrets give equal placeholders under one key.
func (r *Redactor) Placeholder(kind, secret string) string {
	return string(r.appendPlaceholder(nil, kind, []byte(secret)))
}

// ContainsPlaceholder reports whether s contains a placeholder
// [REDACTED:kind:xxxxxxxx]. Write tools refuse such content: writing it
// would replace a real secret with its placeholder.
func ContainsPlaceholder(s string) bool {
	const open = "[REDACTED:"
	for i := 0; ; {
		k := strings.Index(s[i:], open)
		if k < 0 {
			return false
		}
		p := i + k + len(open)
		j := p
		for j < len(s) && (('a' <= s[j] && s[j] <= 'z') || ('0' <= s[j] && s[j] <= '9') || s[j] == '-') {
			j++
		}
		if j > p && j+10 <= len(s) && s[j] == ':' && s[j+9] == ']' && isHex(s[j+1:j+9]) {
			return true
		}
		i = p
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// LoadOrCreateKey returns the 32-byte fingerprint key stored at path,
// creating it (random, mode 0600, durably and atomically: concurrent first
// runs agree on one key) if it does not exist. A key file readable or
// writable by group or others is refused.
func LoadOrCreateKey(path string) ([]byte, error) {
	key, err := loadKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("redact: create key directory: %w", err)
	}
	key = make([]byte, KeySize)
	if _, err := io.ReadFull(rand.Reader, key); err != nil {
		return nil, fmt.Errorf("redact: generate key: %w", err)
	}
	// The key is written whole and fsynced under a name of its own
	// (atomicfile), then linked to path: a link fails if path exists, so
	// whoever links first wins and the others load that key. Where hard
	// links are unsupported, rename instead.
	var rnd [8]byte
	if _, err := io.ReadFull(rand.Reader, rnd[:]); err != nil {
		return nil, fmt.Errorf("redact: generate key: %w", err)
	}
	tmpName := filepath.Join(dir, ".redact-key-"+hex.EncodeToString(rnd[:]))
	if err := atomicfile.Write(tmpName, key, 0o600); err != nil {
		return nil, fmt.Errorf("redact: write key file: %w", err)
	}
	defer os.Remove(tmpName)
	if err := os.Link(tmpName, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return loadKey(path)
		}
		if err := os.Rename(tmpName, path); err != nil {
			return nil, fmt.Errorf("redact: install key file: %w", err)
		}
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return nil, fmt.Errorf("redact: install key file: %w", err)
	}
	return key, nil
}

func loadKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("redact: open key file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("redact: stat key file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("redact: key file %s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("redact: key file %s is accessible by group or others (mode %04o); run: chmod 600 %s", path, perm, path)
	}
	key, err := io.ReadAll(io.LimitReader(f, KeySize+1))
	if err != nil {
		return nil, fmt.Errorf("redact: read key file: %w", err)
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("redact: key file %s holds %d bytes, want %d", path, len(key), KeySize)
	}
	return key, nil
}
