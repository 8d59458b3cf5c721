package replay

// Children: scripts of the subagents a scripted parent starts (task calls).
// The parent and its children talk to the same player at once, in parallel;
// a child's requests are told apart by its task prompt, which is one of its
// user messages and never one of its parent's.
//
//	{
//	  "turns": [...the parent's turns...],
//	  "children": [
//	    {"match": "Which file defines DefaultPort", "turns": [
//	      {"tool_calls": [{"id": "e1_1", "name": "grep", "arguments": "{\"pattern\":\"DefaultPort\"}"}]},
//	      {"text": "config/port.go defines it."}]}
//	  ]
//	}
//
// A request whose first user message contains a child's match (the first
// child in order), else whose later user messages do, is answered from that
// child's turns; every other request from the top-level turns. Within a child, the turn is chosen by
// the conversation: a request with k assistant messages gets turn k+1. So
// children running in parallel each get their own turns whatever the
// interleaving, and a child resumed after a crash gets the turn after the
// last answer its journal holds (an answer streamed but never journaled is
// played again). Hence, in a child's turns:
//
//   - http_status is refused (a retried request would get the same turn);
//   - stall_after_chunks and drop_after_chunks apply the first time the turn
//     is chosen only; when it is chosen again (the resumed or retried
//     request) it is played as written without them;
//   - tool-call ids default to "<child>_<turn>_<call>" (child, turn and call
//     numbers from 1: "c1_2_1"), so they do not collide with the parent's.

import (
	"fmt"
	"strings"
)

// Child is the script of one subagent.
type Child struct {
	// Match is a substring of the child's task prompt (its first user
	// message) that no other run's user messages contain.
	Match string `json:"match"`
	Turns []Turn `json:"turns"`
}

// validateChildren checks the children of a script and sets their default
// tool-call ids.
func validateChildren(cs []Child) error {
	seen := map[string]bool{}
	for ci := range cs {
		c := &cs[ci]
		at := fmt.Sprintf("children[%d]", ci+1)
		if strings.TrimSpace(c.Match) == "" {
			return fmt.Errorf(`%s: match is required (a substring of the child's task prompt, e.g. "Which file defines")`, at)
		}
		if seen[c.Match] {
			return fmt.Errorf("%s: match %q is given twice", at, c.Match)
		}
		seen[c.Match] = true
		if len(c.Turns) == 0 {
			return fmt.Errorf(`%s (%q): no turns (want "turns": [...])`, at, c.Match)
		}
		for ti := range c.Turns {
			t := &c.Turns[ti]
			if t.HTTPStatus != 0 {
				return fmt.Errorf("%s (%q) turn %d: http_status is not allowed in a child's turns (its turn is chosen by its conversation, so a retry would get the same error again); use stall_after_chunks or drop_after_chunks, which a child plays once", at, c.Match, ti+1)
			}
			for j := range t.ToolCalls {
				if t.ToolCalls[j].ID == "" {
					t.ToolCalls[j].ID = fmt.Sprintf("c%d_%d_%d", ci+1, ti+1, j+1)
				}
			}
			if err := t.validate(ti); err != nil {
				return fmt.Errorf("%s (%q) turn %d: %w", at, c.Match, ti+1, err)
			}
		}
	}
	return nil
}

// childOf is the index of the child whose match the first user message
// contains (a child's is its task prompt), else the first whose match
// another user message contains (a compacted child's prompt may have
// moved), or -1: a request of the top-level run.
func childOf(cs []Child, msgs []convMsg) int {
	var users []string
	for _, m := range msgs {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) == 0 {
		return -1
	}
	for i, c := range cs {
		if strings.Contains(users[0], c.Match) {
			return i
		}
	}
	for i, c := range cs {
		for _, u := range users[1:] {
			if strings.Contains(u, c.Match) {
				return i
			}
		}
	}
	return -1
}

// childTurnKey names a child's turn (index from 0) for its one-shot faults.
type childTurnKey struct{ child, turn int }

// takeChild answers request n of child ci: the turn after as many answers
// as the conversation holds. turnNo counts from 1 and is 0 when the
// child's turns have run out.
func (p *player) takeChild(ci, n int, msgs []convMsg, raw []byte) (turnNo int, t Turn) {
	c := &p.script.Children[ci]
	k := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			k++
		}
	}
	if k >= len(c.Turns) {
		p.mismatch("request %d (child %q): script exhausted after %d turns", n, c.Match, len(c.Turns))
		return 0, exhaustedTurn()
	}
	t = c.Turns[k]
	p.mu.Lock()
	if p.faulted == nil {
		p.faulted, p.played = map[childTurnKey]bool{}, map[int]int{}
	}
	key := childTurnKey{ci, k}
	if p.faulted[key] {
		t.StallAfterChunks, t.DropAfterChunks = nil, nil
	} else if t.StallAfterChunks != nil || t.DropAfterChunks != nil {
		p.faulted[key] = true
	}
	p.played[ci]++
	p.mu.Unlock()
	for _, f := range checkExpect(t.Expect, msgs, raw) {
		p.mismatch("request %d (child %q, turn %d): %s", n, c.Match, k+1, f)
	}
	return k + 1, t
}

// pick answers request n from the script of the run it belongs to: child
// is the match of its child, "" for the top-level run.
func (p *player) pick(n int, msgs []convMsg, raw []byte) (child string, turnNo int, t Turn) {
	if ci := childOf(p.script.Children, msgs); ci >= 0 {
		turnNo, t = p.takeChild(ci, n, msgs, raw)
		return p.script.Children[ci].Match, turnNo, t
	}
	turnNo, t = p.take(n, msgs, raw)
	return "", turnNo, t
}

// unplayedChildren are the matches of the children no request was
// answered from, in script order.
func (p *player) unplayedChildren() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i, c := range p.script.Children {
		if p.played[i] == 0 {
			out = append(out, c.Match)
		}
	}
	return out
}
