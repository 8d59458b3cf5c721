package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
)

// evalTask is an evals/<name>/task.toml.
type evalTask struct {
	Prompt   string `toml:"prompt"`
	Check    string `toml:"check"`
	Approval string `toml:"approval"`
	MaxSteps int    `toml:"max_steps"`
}

// evalResult is one task's outcome, as --json prints it.
type evalResult struct {
	Name     string  `json:"name"`
	Passed   bool    `json:"passed"`
	Status   string  `json:"status"` // the run's status
	Exit     int     `json:"exit"`   // the run's exit code
	Check    string  `json:"check"`  // "ok", or why the check failed
	Steps    int     `json:"steps"`
	Calls    int     `json:"tool_calls"`
	Seconds  float64 `json:"seconds"`
	RunError string  `json:"run_error,omitempty"`
}

func newEvalCmd() *cobra.Command {
	var minSuccess float64
	var asJSON bool
	c := &cobra.Command{
		Use:   "eval [DIR]",
		Short: "Run the eval suite by mock replay and report; exit 1 under --min-success",
		Long: `Run every task under DIR (default: evals) by mock replay: the task's workspace/ is
copied to a temporary directory, its script.json of model turns is played through
the real loop and tools (agent run --replay, full-auto, a temporary AGENT_HOME),
then its check command runs in the workspace. See evals/README.md.`,
		Example: `  agent eval
  agent eval evals --min-success 1 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "evals"
			if len(args) == 1 {
				dir = args[0]
			}
			if minSuccess < 0 || minSuccess > 1 {
				return usageErr("--min-success is a fraction between 0 and 1, e.g. 0.9")
			}
			names, err := evalTasks(dir)
			if err != nil {
				return err
			}
			self, err := os.Executable()
			if err != nil {
				return withCode(ExitFailed, fmt.Errorf("find the agent binary: %w", err))
			}
			var results []evalResult
			passed := 0
			for _, name := range names {
				r := runEval(cmd.Context(), self, filepath.Join(dir, name), name)
				if r.Passed {
					passed++
				}
				results = append(results, r)
				if cmd.Context().Err() != nil {
					return withCode(ExitInterrupted, cmd.Context().Err())
				}
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), results); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "TASK\tRESULT\tRUN\tSTEPS\tCALLS\tSECONDS\tCHECK")
				for _, r := range results {
					res := "FAIL"
					if r.Passed {
						res = "pass"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.2f\t%s\n", r.Name, res, r.Status, r.Steps, r.Calls, r.Seconds, oneLine(r.Check, 60))
				}
				tw.Flush()
			}
			rate := float64(passed) / float64(len(results))
			fmt.Fprintf(cmd.ErrOrStderr(), "%d passed, %d failed\n", passed, len(results)-passed)
			if rate < minSuccess {
				return withCode(ExitFailed, fmt.Errorf("success rate %.0f%% is under --min-success %.0f%%", 100*rate, 100*minSuccess))
			}
			return nil
		},
	}
	c.Flags().Float64Var(&minSuccess, "min-success", 0, "exit 1 when the fraction of tasks that pass is below this")
	c.Flags().BoolVar(&asJSON, "json", false, "print the results as one JSON array")
	c.AddCommand(newEvalCaptureCmd())
	return c
}

// evalTasks lists the task directories of dir (those with a task.toml).
func evalTasks(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, usageErr("eval suite %s: %v (give the directory that holds the tasks, e.g. agent eval evals)", dir, err)
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "task.toml")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, usageErr("eval suite %s has no task (a task is a directory with task.toml, script.json and workspace/)", dir)
	}
	sort.Strings(names)
	return names, nil
}

// runEval runs one task; a broken task is a failed result, not an abort.
func runEval(ctx context.Context, self, dir, name string) (res evalResult) {
	res.Name = name
	start := time.Now()
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	var task evalTask
	md, err := toml.DecodeFile(filepath.Join(dir, "task.toml"), &task)
	switch {
	case err != nil:
		res.Check = "bad task.toml: " + err.Error()
		return res
	case len(md.Undecoded()) > 0:
		res.Check = fmt.Sprintf("bad task.toml: unknown key %q (known: prompt, check, approval, max_steps)", md.Undecoded()[0].String())
		return res
	case task.Prompt == "" || task.Check == "":
		res.Check = "bad task.toml: prompt and check are required"
		return res
	}
	if task.Approval == "" {
		task.Approval = "full-auto"
	}
	tmp, err := os.MkdirTemp("", "agent-eval-")
	if err != nil {
		res.Check = err.Error()
		return res
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "workspace")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(dir, "workspace"))); err != nil {
		res.Check = "copy workspace: " + err.Error()
		return res
	}
	script, _ := filepath.Abs(filepath.Join(dir, "script.json"))
	args := []string{"run", "-C", ws, "--replay", script, "--approval", task.Approval, "--json"}
	if task.MaxSteps > 0 {
		args = append(args, "--max-steps", strconv.Itoa(task.MaxSteps))
	}
	run := exec.CommandContext(ctx, self, append(args, task.Prompt)...)
	run.Env = append(os.Environ(), "AGENT_HOME="+filepath.Join(tmp, "state"))
	var out, stderr bytes.Buffer
	run.Stdout, run.Stderr = &out, &stderr
	err = run.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.Exit = ee.ExitCode()
	} else if err != nil {
		res.Check = "run: " + err.Error()
		return res
	}
	res.Status, res.Steps, res.Calls = lastRunFinished(out.Bytes())
	if res.Exit != 0 || res.Status != "completed" {
		res.RunError = lastLine(stderr.String())
		res.Check = "not checked: the run did not complete"
		return res
	}
	check := exec.CommandContext(ctx, "bash", "-c", task.Check)
	check.Dir = ws
	if out, err := check.CombinedOutput(); err != nil {
		res.Check = fmt.Sprintf("%v: %s", err, lastLine(string(out)))
		return res
	}
	res.Check, res.Passed = "ok", true
	return res
}

// lastRunFinished reads status and counters from a --json event stream.
func lastRunFinished(stream []byte) (status string, steps, calls int) {
	for _, line := range bytes.Split(stream, []byte("\n")) {
		var ev struct {
			Type      string `json:"type"`
			Status    string `json:"status"`
			Steps     int    `json:"steps"`
			ToolCalls int    `json:"tool_calls"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "run_finished" {
			status, steps, calls = ev.Status, ev.Steps, ev.ToolCalls
		}
	}
	return status, steps, calls
}

func lastLine(s string) string {
	lines := bytes.Split(bytes.TrimSpace([]byte(s)), []byte("\n"))
	return string(lines[len(lines)-1])
}
