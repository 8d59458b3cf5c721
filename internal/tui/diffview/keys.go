package diffview

import "charm.land/bubbles/v2/key"

// KeyMap is the keys the diff view answers. No letter of the approval
// prompt's (y a n) is among them, so no key decides a call in one place and
// moves a view in another; a parent that uses one of them itself passes a
// KeyMap without it.
type KeyMap struct {
	Up, Down           key.Binding
	PageUp, PageDown   key.Binding
	HalfUp, HalfDown   key.Binding
	Top, Bottom        key.Binding
	NextHunk, PrevHunk key.Binding
	ToggleSplit        key.Binding
	Fullscreen         key.Binding
}

// DefaultKeyMap is up/down/j/k, pgup/pgdown, ctrl+u/ctrl+d, home/end/g/G,
// ] and [ for hunks, t for split and f for fullscreen.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		HalfUp:      key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown:    key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top")),
		Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "bottom")),
		NextHunk:    key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next hunk")),
		PrevHunk:    key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous hunk")),
		ToggleSplit: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "split/unified")),
		Fullscreen:  key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fullscreen")),
	}
}

// ShortHelp is the keys a status line names.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.ToggleSplit, k.NextHunk, k.PrevHunk, k.Fullscreen}
}

// FullHelp is every key, for the help overlay.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.NextHunk, k.PrevHunk, k.ToggleSplit, k.Fullscreen},
	}
}

func (k KeyMap) all() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom, k.NextHunk, k.PrevHunk, k.ToggleSplit, k.Fullscreen}
}
