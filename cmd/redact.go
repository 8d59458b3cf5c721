package cmd

import (
	"agent/internal/app"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/config"
	"agent/internal/termtext"
)

func newRedactCmd() *cobra.Command {
	var pii bool
	c := &cobra.Command{
		Use:   "redact [FILE]...",
		Short: "Print files (or stdin) with every secret redacted, for logs you want to share",
		Long: `Print the files, or stdin when none is given ("-" is stdin too), with every secret
replaced by [REDACTED:KIND:FINGERPRINT]: the same engine and per-install key
($AGENT_HOME/redact.key) as the agent's own trace, so a placeholder here matches
the one in agent trace and agent export for the same secret.

Detected: the token and key formats of every rule of gitleaks' default
configuration (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google,
Azure, Hugging Face, Shopify, DigitalOcean, Databricks, Mailgun, Telegram, age,
Okta, Vault, Sentry DSNs, and some 200 more), private keys (also base64-wrapped,
as in a kubeconfig), JWTs, credentials in URLs (.git-credentials, database and
broker URLs), .netrc and Docker config.json passwords, Kubernetes Secret data,
password= and high-entropy key= style assignments in code, YAML, INI, TOML and
JSON, the values of secret-looking environment variables of this shell
(*TOKEN*, *SECRET*, *KEY*, DATABASE_URL, ...) and every value of the .env files
of the current workspace. [redact] pii and internal_domains in the
workspace's configuration apply; --pii turns on e-mail, phone and card redaction.

The output streams: large files and pipes are redacted as they are read. Every
FILE is opened before anything is printed; if one cannot be read (missing, a
directory, no permission), nothing is printed and the exit code is 2.`,
		Example: `  agent redact build.log > build.redacted.log
  kubectl logs deploy/api | agent redact | pbcopy
  agent redact --pii .env config/*.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRedact(cmd, args, pii)
		},
	}
	c.Flags().BoolVar(&pii, "pii", false, "also redact e-mail addresses, phone numbers and card numbers")
	return c
}

func runRedact(cmd *cobra.Command, args []string, pii bool) error {
	// Fail fast: open every input before the first byte goes out, so a typo
	// in one name never leaves a partial file that looks complete.
	var inputs []io.Reader
	var bad []string
	stdinUsed := false
	for _, a := range args {
		if a == "-" {
			if !stdinUsed {
				inputs = append(inputs, cmd.InOrStdin())
				stdinUsed = true
			}
			continue
		}
		f, err := os.Open(a)
		if err == nil {
			var fi os.FileInfo
			if fi, err = f.Stat(); err == nil && fi.IsDir() {
				err = errors.New("is a directory")
			}
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			bad = append(bad, describeOpenErr(a, err))
			continue
		}
		defer f.Close()
		inputs = append(inputs, f)
	}
	if len(bad) > 0 {
		return usageErr("nothing redacted: %s", strings.Join(bad, "; "))
	}
	if len(args) == 0 {
		inputs = []io.Reader{cmd.InOrStdin()}
	}

	ws, err := app.ResolveWorkspace("")
	if err != nil {
		return err
	}
	cfg, warnings, err := config.Load(ws, config.Sources{})
	if err != nil {
		return usageErr("%v", err)
	}
	for _, w := range warnings {
		warn(cmd.ErrOrStderr(), w)
	}
	red, err := app.NewRedactor(&app.Settings{Home: cfg.Home, Workspace: ws, RedactPII: cfg.RedactPII || pii, InternalDomains: cfg.InternalDomains})
	if err != nil {
		return err
	}
	// the redacted text is exact in a file or a pipe, made visible on a terminal
	out, endOut := termtext.WriterFor(cmd.OutOrStdout())
	defer endOut()
	w := red.NewWriter(out)
	for i, in := range inputs {
		if _, err := io.Copy(w, in); err != nil {
			w.Close() // emit what was read, redacted
			name := "stdin"
			if f, ok := in.(*os.File); ok && f != os.Stdin {
				name = f.Name()
			}
			return withCode(ExitFailed, fmt.Errorf("redact input %d (%s): %w", i+1, name, err))
		}
	}
	if err := w.Close(); err != nil {
		return withCode(ExitFailed, fmt.Errorf("write redacted output: %w", err))
	}
	if err := endOut(); err != nil {
		return withCode(ExitFailed, fmt.Errorf("write redacted output: %w", err))
	}
	return nil
}

func describeOpenErr(name string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: no such file (check the path)", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s: permission denied", name)
	}
	return fmt.Sprintf("%s: %v", name, err)
}
