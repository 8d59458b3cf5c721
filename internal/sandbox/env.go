package sandbox

import (
	"path"
	"strings"
)

// alwaysScrubbed are removed whatever their value: the model API keys.
var alwaysScrubbed = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// ScrubEnv returns environ without the variables a command must not see:
// the model API keys and every variable isSecret says holds a credential
// (by its name or its value), except those allow names (exact names or
// globs such as "MY_*"). removed lists the names taken out, for a note.
func ScrubEnv(environ, allow []string, isSecret func(name, value string) bool) (kept, removed []string) {
	kept = make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		drop := false
		for _, n := range alwaysScrubbed {
			if strings.EqualFold(name, n) {
				drop = true
			}
		}
		if !drop && isSecret != nil && isSecret(name, value) && !allowed(name, allow) {
			drop = true
		}
		if drop {
			removed = append(removed, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, removed
}

func allowed(name string, allow []string) bool {
	for _, a := range allow {
		if a == name {
			return true
		}
		if ok, err := path.Match(a, name); err == nil && ok {
			return true
		}
	}
	return false
}
