package agent

import (
	"context"
	"sort"
	"time"

	"agent/internal/event"
	"agent/internal/proc"
)

// OSProcesses is the Processes of a real run: it finds what is left of the
// run's commands with internal/proc (their process groups, verified against
// id reuse, and processes carrying the run's marker) and ends them, SIGTERM
// first, SIGKILL after Grace.
type OSProcesses struct {
	Grace time.Duration // 0: one second
}

var _ Processes = OSProcesses{}

// End implements Processes.
func (o OSProcesses) End(ctx context.Context, runID string, cmds []event.CommandStartedData) []event.ProcessReport {
	ids := make([]proc.Identity, len(cmds))
	order := map[int]int{} // pgid -> index of the command that started it
	for i, c := range cmds {
		ids[i] = proc.Identity{PID: c.PID, PGID: c.PGID, BootID: c.BootID, StartTicks: c.StartTicks, Marker: c.Marker}
		order[c.PGID] = i
	}
	found, err := proc.Scan(ids, runID+"/")
	if err != nil || len(found) == 0 {
		return nil
	}
	var all []proc.Info
	var reps []event.ProcessReport
	for pgid, infos := range found {
		rep := event.ProcessReport{PGID: pgid, Action: event.ProcessKilled}
		if i, ok := order[pgid]; ok && pgid != 0 {
			rep.CallID = cmds[i].CallID
		}
		for _, in := range infos {
			rep.Processes = append(rep.Processes, event.ProcessInfo{PID: in.PID, Command: in.Command})
		}
		all = append(all, infos...)
		reps = append(reps, rep)
	}
	grace := o.Grace
	if grace <= 0 {
		grace = time.Second
	}
	proc.End(ctx, all, grace)
	sort.Slice(reps, func(a, b int) bool {
		ia, oka := order[reps[a].PGID]
		ib, okb := order[reps[b].PGID]
		if oka != okb {
			return oka
		}
		return ia < ib
	})
	return reps
}
