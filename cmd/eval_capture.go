package cmd

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/capture"
)

// newEvalCaptureCmd is `agent eval capture`; the constructor of `agent eval`
// adds it (c.AddCommand(newEvalCaptureCmd())).
func newEvalCaptureCmd() *cobra.Command {
	var name, dir string
	c := &cobra.Command{
		Use:   "capture RUN_ID",
		Short: "Turn a run into an eval task: fixture, prompt, model turns, policy",
		Long: `Turn a journaled run into an eval task in DIR/NAME (see evals/README.md):
  fixture/    the workspace at the run's first checkpoint, before its first change
              (a run that changed nothing: the commit of the workspace's git HEAD),
              with secrets redacted
  turns.json  the model's answers from the journal (already redacted): text, tool
              calls with their ids and arguments, usage
  task.toml   the prompt, max_steps, the policy (mode, allow and deny rules, the
              person's decisions), and an [expect] section for you to fill in, with
              what the run did (status, failure class and reason, files changed)
              written as comments
It never overwrites: an existing DIR/NAME is an error. Replay the task with
agent eval DIR.`,
		Example: `  agent eval capture 20261129T203216-3f9a1c
  agent eval capture 20261129T2032 --name rm-denied --dir evals/recovery
  agent eval evals/captured`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name != "" && !capture.ValidName(name) {
				return usageErr("--name %q: use letters, digits, '.', '_' and '-' (no '/'), starting with a letter or digit", name)
			}
			h, err := openHome(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			task, err := h.Capture(cmd.Context(), args[0], app.CaptureOptions{Dir: dir, Name: name})
			switch {
			case errors.Is(err, capture.ErrExists), errors.Is(err, capture.ErrNoFixture):
				return usageErr("%v", err)
			case app.IsNotFound(err):
				return notFound(err)
			case err != nil:
				return withCode(ExitFailed, err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "captured run %s as %s: %d model turn(s), %d fixture file(s)\n", task.RunID, task.Dir, task.Turns, task.Files)
			fmt.Fprintf(w, "the run ended %s\n", task.Outcome)
			fmt.Fprintf(w, "next: fill in [expect] in %s, then: agent eval %s\n", filepath.Join(task.Dir, "task.toml"), dir)
			return nil
		},
	}
	c.Flags().StringVar(&name, "name", "", "the task's directory name (default: run-RUN_ID)")
	c.Flags().StringVar(&dir, "dir", filepath.Join("evals", "captured"), "the directory the task is created in")
	return c
}
