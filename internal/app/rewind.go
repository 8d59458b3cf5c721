package app

import (
	"context"
	"fmt"
	"time"

	"agent/internal/event"
)

// Prompt is one of the person's messages in a run, with what rewinding to
// just before it would restore.
type Prompt struct {
	// Seq is the message's place in the journal.
	Seq  int64
	Text string
	Time time.Time
	// Checkpoint is the first checkpoint taken after the message: its files
	// are the workspace as it was when the message was sent. "" when no
	// checkpoint was taken since (no file changed after it).
	Checkpoint string
	// Files are the paths that differ between Checkpoint and the run's
	// newest checkpoint: what rewinding the code would change.
	Files []string
}

// Prompts lists the person's messages of a run's active conversation,
// oldest first (a message a conversation rollback took out is not listed),
// each with the checkpoint that holds the files as they were when it was
// sent and the files changed since (to the files now: the newest
// checkpoint, or the checkpoint a rollback just restored).
func (h *Home) Prompts(ctx context.Context, runID string) ([]Prompt, error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	evs, err := h.st.Events(ctx, run.ID, 0)
	if err != nil {
		return nil, err
	}
	cps, err := h.st.Checkpoints(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	var out []Prompt
	for _, ev := range evs {
		if rb, ok := ev.Data.(*event.RollbackData); ok && rb.Conversation {
			n := len(out)
			for n > 0 && out[n-1].Seq > rb.ToSeq {
				n--
			}
			out = out[:n]
			continue
		}
		d, ok := ev.Data.(*event.UserMessageData)
		if !ok {
			continue
		}
		p := Prompt{Seq: ev.Seq, Text: d.Text, Time: ev.Time}
		for _, c := range cps {
			if c.Seq >= ev.Seq {
				p.Checkpoint = c.ID
				break
			}
		}
		out = append(out, p)
	}
	if len(cps) == 0 {
		return out, nil
	}
	repo, err := h.repo(run.Workspace)
	if err != nil {
		return out, nil // listed without the files: the list still rewinds the conversation
	}
	head, err := repo.Head(run.ID)
	if err != nil || head.ID == "" {
		return out, nil
	}
	now := head.ID
	if target := h.rolledBackTo(ctx, run.ID, head.ID); target != "" {
		now = target // the newest checkpoint is a rollback's own: the files are its target's
	}
	diffs := map[string][]string{}
	for i := range out {
		cp := out[i].Checkpoint
		if cp == "" || cp == now {
			continue
		}
		if files, ok := diffs[cp]; ok {
			out[i].Files = files
			continue
		}
		d, err := repo.Diff(ctx, cp, now)
		if err != nil {
			continue
		}
		files := []string{}
		for _, ch := range d {
			files = append(files, ch.Path)
		}
		diffs[cp], out[i].Files = files, files
	}
	return out, nil
}

// Rewind rolls the run this session drives back to just before the
// person's message at seq: its files (opt.Files), its conversation
// (opt.Conversation) or both. Like any rollback it first checkpoints the
// present files, so it can be undone from the checkpoint list.
func (s *Service) Rewind(ctx context.Context, r *Run, seq int64, opt RollbackOptions) (RollbackResult, error) {
	if r == nil {
		return RollbackResult{}, usage("no run to rewind")
	}
	if !opt.Files && !opt.Conversation {
		return RollbackResult{}, usage("a rewind puts back the files, the conversation or both: say which")
	}
	prompts, err := s.Home().Prompts(ctx, r.id)
	if err != nil {
		return RollbackResult{}, err
	}
	var p *Prompt
	for i := range prompts {
		if prompts[i].Seq == seq {
			p = &prompts[i]
		}
	}
	if p == nil {
		return RollbackResult{}, usage("run %s has no message of yours at event %d", r.id, seq)
	}
	opt.ToSeq = max(1, p.Seq-1)
	if p.Checkpoint != "" {
		return s.Rollback(ctx, p.Checkpoint, opt, r)
	}
	// No checkpoint since the message: no file changed after it.
	res := RollbackResult{RunID: r.id, Files: []string{}}
	if !opt.Conversation {
		return res, nil
	}
	rb := &event.RollbackData{Files: []string{}, Conversation: true, ToSeq: opt.ToSeq}
	if err := r.s.runner.RecordRollback(ctx, r.state, nil, rb); err != nil {
		return res, fmt.Errorf("rewind the conversation of run %s: %w", r.id, err)
	}
	return res, nil
}
