package tools

import (
	"fmt"

	"agent/internal/redact"
)

// refusePlaceholder stops a write that would put a redaction placeholder into
// a file: the model never saw the secret, so writing the placeholder would
// silently replace a real value with garbage.
func refusePlaceholder(tool, content string) error {
	if redact.ContainsPlaceholder(content) {
		return fmt.Errorf("%s: the content contains a [REDACTED:...] placeholder; secrets are hidden from you, so "+
			"writing the placeholder would destroy the real value. Leave those lines unchanged (edit around them with "+
			"edit_file) or ask the user to fill in the secret", tool)
	}
	return nil
}
