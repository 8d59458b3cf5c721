package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"agent/internal/app"
)

func newExportCmd() *cobra.Command {
	var outFile, otlpURL string
	c := &cobra.Command{
		Use:   "export RUN_ID [-o FILE | --otlp URL]",
		Short: "Write a run's redacted events as JSONL, or send its trace over OTLP; recorded in the audit log",
		Long: `Write a run's events as JSON lines, the same objects as agent run --json prints.
Everything in the journal has passed secret redaction already; export redacts
every line again, with the key, the environment and the .env files of now, so a
secret learned since the run was journaled is caught too.

With -o the file is written atomically (a temporary file renamed into place) with
mode 0600; without it the lines go to stdout. Every export is a row in the audit
log: who, where to, how many events and bytes, full or metadata only.

Sampling: [trace] sample (0 to 1, default 1) in the configuration of the run's
workspace is the share of runs whose exports carry full content. Which runs those
are is decided per run by a keyed hash of its id, so exporting one run twice gives
the same answer. The other runs export metadata only: every event with its types,
ids, tools, statuses, approvals, checkpoints, token counts, errors and the model's
text, but a tool result's output becomes a note with its size, and strings over
256 bytes in tool-call arguments (file contents, edit texts) become such notes.

With --otlp URL the run is sent instead as one OpenTelemetry trace to an
OTLP/HTTP receiver (Jaeger, Tempo, Langfuse, an OpenTelemetry Collector):
URL is the receiver's base URL, to which /v1/traces is added
(http://127.0.0.1:4318). A span per stretch of the run, per model request
(GenAI conventions: gen_ai.operation.name, gen_ai.request.model,
gen_ai.usage.input_tokens, ...) and per tool call; approvals, checkpoints
and rollbacks are span events. Prompt and output text is included only
with [otel] content = true (and a run sampled for full exports); every
string is redacted. The audit row is written before anything is sent.`,
		Example: `  agent export 20261129T203216-3f9a1c > run.jsonl
  agent export 20261129T2032 -o /tmp/run.jsonl
  agent export 20261129T2032 | jq -c 'select(.type=="tool_call") | {name, arguments}'
  agent export 20261129T2032 --otlp http://127.0.0.1:4318`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("agent export needs one run id, e.g. agent export 20261129T203216-3f9a1c -o run.jsonl (list them with agent runs)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("otlp") {
				if outFile != "" {
					return usageErr("give either -o FILE or --otlp URL, not both (export twice for both)")
				}
				return runExportOTLP(cmd, args[0], otlpURL)
			}
			return runExport(cmd, args[0], outFile)
		},
	}
	c.Flags().StringVarP(&outFile, "output", "o", "", "write to FILE (mode 0600, atomically) instead of stdout")
	c.Flags().StringVar(&otlpURL, "otlp", "", "send the run's trace to the OTLP/HTTP receiver at `URL` (e.g. http://127.0.0.1:4318) instead")
	return c
}

func runExportOTLP(cmd *cobra.Command, id, url string) error {
	h, err := openHome(cmd) // an export that leaves the machine is always audited
	if err != nil {
		return err
	}
	defer h.Close()
	errw := cmd.ErrOrStderr()
	ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
	defer cancel()
	res, err := h.ExportOTLP(ctx, id, url, app.OTLPOptions{
		Warn: func(w string) { warn(errw, w) },
	})
	if err != nil {
		return appErr(err)
	}
	mode := "metadata only"
	if res.Content {
		mode = "with prompt and output text"
	}
	fmt.Fprintf(errw, "exported run %s: %d spans, %s, to %s\n", res.RunID, res.Spans, mode, res.Where)
	return nil
}

func runExport(cmd *cobra.Command, id, outFile string) error {
	h, err := openHomeRead(cmd)
	if err != nil {
		return err
	}
	defer h.Close()
	errw := cmd.ErrOrStderr()
	to := app.ExportTarget{Path: outFile}
	if outFile == "" || outFile == "-" {
		to = app.ExportTarget{W: cmd.OutOrStdout()}
	}
	res, err := h.Export(cmd.Context(), id, to, app.ExportOptions{
		Warn: func(w string) { warn(errw, w) },
	})
	var pe *app.ExportPathError
	if errors.As(err, &pe) {
		switch pe.Problem {
		case app.ExportDirMissing:
			return usageErr("-o %s: the directory %s does not exist (create it or fix the path)", outFile, filepath.Dir(pe.Abs))
		case app.ExportPathIsDir:
			return usageErr("-o %s is a directory: give a file name, e.g. -o %s", outFile, pe.Suggest)
		default:
			return usageErr("-o %s: %v", outFile, pe.Err)
		}
	}
	if err != nil {
		return appErr(err)
	}
	fmt.Fprintf(errw, "exported run %s: %d events, %d bytes, %s, to %s\n", res.RunID, res.Events, res.Bytes, res.Mode, res.Where)
	return nil
}
