package event

// BudgetChangedData is a run's budget replaced: To is the whole new budget
// (a zero field: no limit of that kind), From the one before (nil: none).
type BudgetChangedData struct {
	From   *Budget `json:"from,omitempty"`
	To     Budget  `json:"to"`
	Source Source  `json:"source"`
}

func (*BudgetChangedData) EventType() Type { return BudgetChanged }

// IsZero reports whether b sets no limit.
func (b Budget) IsZero() bool { return b.Tokens == 0 && b.USD == 0 && b.Time == "" }
