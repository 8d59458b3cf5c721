package event

// ApprovalMode is a run's approval mode (run_started.approval, the runs
// table, settings). The values are the contract's, strictest first.
type ApprovalMode string

const (
	ApprovalReadOnly ApprovalMode = "read-only"
	// ApprovalPlan: reads and update_plan only, until a person approves
	// the plan; then the mode the person picks.
	ApprovalPlan     ApprovalMode = "plan"
	ApprovalAsk      ApprovalMode = "ask"
	ApprovalAutoEdit ApprovalMode = "auto-edit"
	ApprovalFullAuto ApprovalMode = "full-auto"
)

// ApprovalModes lists the approval modes, strictest first.
func ApprovalModes() []ApprovalMode {
	return []ApprovalMode{ApprovalReadOnly, ApprovalPlan, ApprovalAsk, ApprovalAutoEdit, ApprovalFullAuto}
}

// Valid reports whether m is one of the approval modes.
func (m ApprovalMode) Valid() bool {
	for _, v := range ApprovalModes() {
		if m == v {
			return true
		}
	}
	return false
}

func (m ApprovalMode) String() string { return string(m) }

// SandboxMode is how much a command may change (sandbox.mode of
// run_started, tool_call and tool_result; settings).
type SandboxMode string

const (
	SandboxOff            SandboxMode = "off"
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
	SandboxReadOnly       SandboxMode = "read-only"
)

func (m SandboxMode) String() string { return string(m) }

// Provider is the wire protocol of the model a run speaks to
// (run_started.provider; "" for a replayed script).
type Provider string

const (
	ProviderOpenAI    Provider = "openai"
	ProviderAnthropic Provider = "anthropic"
)

func (p Provider) String() string { return string(p) }
