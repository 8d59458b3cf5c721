package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/atomicfile"
	"agent/internal/budget"
	"agent/internal/evals"
	"agent/internal/termtext"
)

// evalFlags are the flags of agent eval.
type evalFlags struct {
	minSuccess float64
	asJSON     bool
	live       bool
	budgetUSD  string
	shard      string
	report     string
	baseline   string
	jobs       int
}

func newEvalCmd() *cobra.Command {
	var f evalFlags
	c := &cobra.Command{
		Use:   "eval [DIR]",
		Short: "Run the eval suite through the real loop and report; exit 1 under --min-success",
		Long: `Run every task under DIR (default: evals): a folder with task.toml, fixture/ and
turns.json (see evals/README.md). Each task runs in a fresh workspace (the fixture,
committed to a new git repository), with a fresh AGENT_HOME and XDG_CONFIG_HOME,
through this agent binary as a subprocess: agent run --json, talking HTTP+SSE to a
local chat-completions server started here that plays the task's turns.json. Pauses
for approval are answered from the task's decisions (agent resume --approve/--deny),
faults applied (SIGKILL of the agent, then agent resume), then the expected outcome,
files, check command and trace assertions are checked.

--live runs the same tasks against the model you configured (as agent run resolves
it: flags, OPENAI_BASE_URL, OPENAI_API_KEY, AGENT_MODEL, config files) instead of
the turns, and reports cost for known models; --budget-usd X gives each task's run
that dollar budget (agent run --budget-usd), and a task whose run reaches it fails.

A progress line per task goes to stderr when it is a terminal. The report goes to
stdout: a table, or with --json one object {tasks, summary}; --report FILE.md
writes it in markdown; --baseline FILE.json (an earlier --json report) adds a chart
of every metric against it. --shard I/N runs the tasks whose index in name order is
I-1 modulo N, so N shards together run every task once; its --json report names
the shard and the suite, and agent eval merge combines the shards' reports.

Exit codes: 0 done, 1 the success rate is under --min-success, 2 a bad flag or a bad
task (the message names the file and the fix).`,
		Example: `  agent eval
  agent eval evals --min-success 1 --json > report.json
  agent eval evals --baseline report.json --report report.md
  agent eval evals --shard 2/3
  OPENAI_API_KEY=... agent eval evals/edit --live
  OPENAI_API_KEY=... agent eval evals --live --budget-usd 0.50`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "evals"
			if len(args) == 1 {
				dir = args[0]
			}
			return runEvalSuite(cmd, dir, &f)
		},
	}
	fl := c.Flags()
	fl.Float64Var(&f.minSuccess, "min-success", 0, "exit 1 when the fraction of tasks that pass is below this (0 to 1)")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as one JSON object {tasks, summary}")
	fl.BoolVar(&f.live, "live", false, "run against the configured model instead of the tasks' turns (reports cost)")
	fl.StringVar(&f.budgetUSD, "budget-usd", "", "with --live: each task's dollar budget; a task that reaches it fails (exit 4 of its run)")
	fl.StringVar(&f.shard, "shard", "", "run shard I of N (1-based), e.g. 2/3")
	fl.StringVar(&f.report, "report", "", "also write the report in markdown to this file")
	fl.StringVar(&f.baseline, "baseline", "", "an earlier --json report to chart the metrics against")
	fl.IntVarP(&f.jobs, "jobs", "j", 1, "tasks to run at the same time")
	c.AddCommand(newEvalCaptureCmd(), newEvalMergeCmd())
	return c
}

func runEvalSuite(cmd *cobra.Command, dir string, f *evalFlags) error {
	ctx := cmd.Context()
	if f.minSuccess < 0 || f.minSuccess > 1 {
		return usageErr("--min-success %v: want a fraction between 0 and 1, e.g. --min-success 0.9", f.minSuccess)
	}
	if f.jobs < 1 {
		return usageErr("-j %d: want at least 1 task at a time", f.jobs)
	}
	var shard evals.Shard
	if f.shard != "" {
		s, err := evals.ParseShard(f.shard)
		if err != nil {
			return usageErr("%v", err)
		}
		shard = s
	}
	var base *evals.Report
	if f.baseline != "" {
		b, err := evals.LoadBaseline(f.baseline)
		if err != nil {
			return usageErr("%v", err)
		}
		base = b
	}
	names, err := evals.Discover(dir)
	if err != nil {
		return usageErr("%v", err)
	}
	// Every task is checked before any runs: a typo fails fast, naming the file.
	var tasks []*evals.Task
	for _, n := range shard.Select(names) {
		t, err := evals.LoadTask(evals.TaskDir(dir, n), evals.TaskName(dir, n))
		if err != nil {
			return usageErr("%v", err)
		}
		tasks = append(tasks, t)
	}
	self, err := os.Executable()
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("find the agent binary: %w", err))
	}
	opt := evals.Options{Bin: self, Env: os.Environ(), Live: f.live}
	if f.budgetUSD != "" {
		if !f.live {
			return usageErr("--budget-usd applies to --live only: a replayed task spends nothing (add --live, or drop --budget-usd)")
		}
		if opt.BudgetUSD, err = budget.ParseUSD(f.budgetUSD); err != nil {
			return usageErr("--budget-usd: %v", err)
		}
	}
	if f.live {
		if opt.LiveEnv, err = liveEnv(); err != nil {
			return err
		}
	}
	var progress io.Writer
	if term.IsTerminal(os.Stderr.Fd()) {
		progress = cmd.ErrOrStderr()
	}
	results := runTasks(ctx, evals.NewRunner(opt), tasks, f.jobs, progress)
	if ctx.Err() != nil {
		return withCode(ExitInterrupted, ctx.Err())
	}
	rep := evals.NewReport(results, f.live, shard)
	if shard.N > 0 {
		// the shard's identity: agent eval merge checks the shards cover this suite
		for _, n := range names {
			rep.Suite = append(rep.Suite, evals.TaskName(dir, n))
		}
	}
	if f.report != "" {
		if err := writeMarkdownReport(f.report, rep, base); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	if !f.asJSON {
		// the report quotes what the runs did: visible on a terminal
		tw, done := termtext.WriterFor(out)
		defer done()
		out = tw
	}
	if f.asJSON {
		err = rep.WriteJSON(out)
	} else {
		err = rep.WriteText(out, base)
	}
	if err != nil {
		return err
	}
	if rep.Summary.SuccessRate < f.minSuccess {
		return withCode(ExitFailed, fmt.Errorf("%d of %d tasks passed: the success rate %.0f%% is under --min-success %.0f%%",
			rep.Summary.Passed, rep.Summary.Tasks, 100*rep.Summary.SuccessRate, 100*f.minSuccess))
	}
	return nil
}

// runTasks runs the tasks, jobs at a time, printing a progress line per
// finished task when progress is set. Results keep the tasks' order.
func runTasks(ctx context.Context, r *evals.Runner, tasks []*evals.Task, jobs int, progress io.Writer) []evals.Result {
	results := make([]evals.Result, len(tasks))
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, max(len(tasks), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res := r.Run(ctx, tasks[i])
				mu.Lock()
				results[i] = res
				done++
				if progress != nil {
					line := fmt.Sprintf("[%d/%d] %s %s %s %.1fs", done, len(tasks), passWord(res.Passed), res.Name, orDash(res.Status), res.Seconds)
					if !res.Passed && len(res.Failures) > 0 {
						line += ": " + res.Failures[0]
					}
					fmt.Fprintln(progress, oneLine(line, 160))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range tasks {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func passWord(p bool) string {
	if p {
		return "pass"
	}
	return "FAIL"
}

// liveEnv resolves the configured model as agent run does and returns the
// variables that carry it to each task's run (whose config home is fresh).
func liveEnv() ([]string, error) {
	set, warnings, err := app.LoadSettings(app.Flags{}, nil)
	for _, w := range warnings {
		warn(os.Stderr, w)
	}
	if err != nil {
		var ue *app.UsageError
		if errors.As(err, &ue) {
			return nil, usageErr("--live: %v", err)
		}
		return nil, withCode(ExitFailed, err)
	}
	env := []string{"OPENAI_BASE_URL=" + set.BaseURL, "AGENT_MODEL=" + set.Model}
	if set.APIKey != "" {
		env = append(env, "OPENAI_API_KEY="+set.APIKey)
	}
	return env, nil
}

func writeMarkdownReport(file string, rep evals.Report, base *evals.Report) error {
	var sb strings.Builder
	if err := rep.WriteMarkdown(&sb, base); err != nil {
		return err
	}
	if err := atomicfile.Write(file, []byte(sb.String()), 0o644); err != nil {
		return usageErr("--report %s: %v (give a writable path)", file, err)
	}
	return nil
}
