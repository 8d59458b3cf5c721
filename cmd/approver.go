package cmd

import (
	"agent/internal/approval"
	"agent/internal/policy"
)

// useApprover sets the run's approval policy: its mode and rules, the run's
// grants, and the read-deny rules hidden from searches. Headless: a call that
// needs a person pauses the run.
func (s *session) useApprover(runID, mode string, allow, deny []string) error {
	m, err := policy.ParseMode(mode)
	if err != nil {
		return usageErr("%v (set --approval or AGENT_APPROVAL)", err)
	}
	p, err := policy.New(m, allow, deny, s.set.Workspace)
	if err != nil {
		return usageErr("%v (fix the --allow/--deny flag or the [permissions] of your config file)", err)
	}
	s.runner.Approver = &approval.Approver{
		Policy: p, Grants: s.store, TTL: s.set.RunGrantTTL,
		Tools: s.runner.Tools, ToolEnv: s.runner.ToolEnv,
	}
	s.runner.ToolEnv.Hidden = func(rel string) bool {
		_, denied := p.PathDenied("read_file", rel)
		return denied
	}
	return nil
}
