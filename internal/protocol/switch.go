package protocol

import "agent/internal/event"

// ModeChangedLine says a switch of the approval mode in words, for the
// transcript and the progress lines.
func ModeChangedLine(d *event.ModeChangedData) string {
	return "approval mode " + string(d.From) + " → " + string(d.To) + bySource(d.Source)
}

// ModelChangedLine says a switch of the model in words.
func ModelChangedLine(d *event.ModelChangedData) string {
	return "model " + d.From + " → " + d.To + bySource(d.Source)
}

func bySource(s event.Source) string {
	switch s {
	case event.SourceUser:
		return " (by you)"
	case "":
		return ""
	}
	return " (by " + string(s) + ")"
}
