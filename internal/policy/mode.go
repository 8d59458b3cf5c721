package policy

import (
	"fmt"
	"strings"
)

// Mode is an approval mode, ordered from strictest to loosest.
type Mode int

const (
	// ModeReadOnly: reads run; writes and commands are denied.
	ModeReadOnly Mode = iota + 1
	// ModePlan: reads and update_plan run; writes and commands are denied
	// until a person approves the plan the model wrote (then the mode the
	// person picks). Stricter than ask, looser than read-only (it ends).
	ModePlan
	// ModeAsk: reads run; writes and commands ask (unless an allow rule covers them).
	ModeAsk
	// ModeAutoEdit: reads and file writes inside the workspace run; commands ask.
	ModeAutoEdit
	// ModeFullAuto: everything runs except what a deny rule names.
	ModeFullAuto
)

// DefaultMode is the mode when nothing chooses one.
const DefaultMode = ModeAsk

var modeNames = [...]string{ModeReadOnly: "read-only", ModePlan: "plan", ModeAsk: "ask", ModeAutoEdit: "auto-edit", ModeFullAuto: "full-auto"}

// ModeNames lists the valid mode names, strictest first.
func ModeNames() []string {
	return []string{"read-only", "plan", "ask", "auto-edit", "full-auto"}
}

// String returns the mode's name as users write it ("auto-edit").
func (m Mode) String() string {
	if m >= ModeReadOnly && m <= ModeFullAuto {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// Valid reports whether m is one of the modes.
func (m Mode) Valid() bool { return m >= ModeReadOnly && m <= ModeFullAuto }

// LooserThan reports whether m grants more than o (read-only < plan < ask
// < auto-edit < full-auto).
func (m Mode) LooserThan(o Mode) bool { return m > o }

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("invalid approval mode %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ModeError is returned by ParseMode for an unknown mode name.
type ModeError struct{ Value string }

func (e *ModeError) Error() string {
	return fmt.Sprintf("unknown approval mode %q (valid: %s)", e.Value, strings.Join(ModeNames(), ", "))
}

// ParseMode parses a mode name. It accepts the names case-insensitively and
// with "_" for "-" ("full_auto"); anything else is a *ModeError naming the
// valid values.
func ParseMode(s string) (Mode, error) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	for m := ModeReadOnly; m <= ModeFullAuto; m++ {
		if modeNames[m] == n {
			return m, nil
		}
	}
	return 0, &ModeError{Value: s}
}
