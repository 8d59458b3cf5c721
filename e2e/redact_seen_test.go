package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// seenForm is what a person reads of text that went through JSON and a
// terminal: JSON-encoded and raw escape sequences cut, JSON string escapes
// decoded (nested twice: a request body holds tool output holding JSON).
func seenForm(s string) string {
	esc := regexp.MustCompile(`(?:\x1b|\\u001b|\\\\u001b)\[[0-9;?]*[ -/]*[@-~]`)
	for range 3 {
		s = esc.ReplaceAllString(s, "")
		s = strings.NewReplacer(`\\`, `\`, `\/`, "/", `\"`, `"`, `\u002f`, "/", `\u002F`, "/").Replace(s)
	}
	return s
}

// TestRedactColouredAndEscaped (issue 19): secrets a person would read in
// coloured command output (grep --color=always, jq -C) and in JSON-escaped,
// PHP, .pgpass and webhook files reach neither the model's requests, the
// --json stream, the trace nor the export, read through read_file and
// run_command alike; and the text around them is still there.
func TestRedactColouredAndEscaped(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	pw := rs(b62, 20)
	cs := rs(b62, 32)
	phpPw := rs(b62, 18)
	pgPw := rs(b62, 16)
	short := rs(b62, 6)
	wh := "T0" + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8) + "/B0" + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8) + "/" + rs(b62, 24)
	whSecret := wh[strings.LastIndex(wh, "/")+1:]
	did := "1" + rs("0123456789", 17)
	dtok := rs(b62, 68)
	files := map[string]string{
		"config/app.yml":      "db:\n  host: db.internal\n  user: app\n  password: " + pw + "\n",
		"secrets/client.json": `{"client_id": "web-app", "client_secret": "` + cs + `", "scopes": ["read"]}` + "\n",
		"hooks/notify.json":   `{"channel": "#ops", "url": "https:\/\/hooks.slack.com\/services\/` + strings.ReplaceAll(wh, "/", `\/`) + `"}` + "\n",
		"hooks/discord.json":  `{"webhook": "https:\/\/discord.com\/api\/webhooks\/` + did + `\/` + dtok + `"}` + "\n",
		"wp-config.php":       "<?php\ndefine('DB_NAME', 'shop');\ndefine('DB_PASSWORD', '" + phpPw + "');\n",
		"ops/pgpass":          "db.internal:5432:shop:app:" + pgPw + "\n",
		"deploy/app.env":      "APP_ENV=production\nREDIS_PASSWORD=" + short + "\n",
	}
	secrets := map[string]string{
		"yaml password": pw, "json client_secret": cs, "php define": phpPw, "pgpass": pgPw,
		"slack webhook": whSecret, "discord webhook": dtok, "short .env value": short,
	}
	e := &env{t: t, ws: gitRepo(t, files), home: filepath.Join(t.TempDir(), "state")}
	// An MCP server reads two of the files: its answer carries them
	// JSON-escaped (and coloured: the YAML through grep's colours, below).
	xdg := t.TempDir()
	os.MkdirAll(filepath.Join(xdg, "agent"), 0o755)
	os.WriteFile(filepath.Join(xdg, "agent", "config.toml"), []byte(fmt.Sprintf("[mcp.servers.t]\ncommand = %q\nread_only_tools = [\"cat\"]\n", mcpServerBin)), 0o644)
	e.serve(script(
		turn("Looking at the configuration.",
			call("c1", "run_command", map[string]any{"command": "grep --color=always -r . config deploy"}),
			call("c2", "run_command", map[string]any{"command": "jq -C . secrets/client.json"}),
			call("c3", "run_command", map[string]any{"command": "grep --color=always -r url hooks; cat ops/pgpass wp-config.php"})),
		turn("Reading the files.",
			call("r1", "read_file", map[string]any{"path": "hooks/notify.json"}),
			call("r2", "read_file", map[string]any{"path": "hooks/discord.json"}),
			call("r3", "read_file", map[string]any{"path": "wp-config.php"}),
			call("r4", "read_file", map[string]any{"path": "ops/pgpass"})),
		turn("Asking the server.",
			call("m1", "mcp__t__cat", map[string]any{"path": filepath.Join(e.ws, "secrets/client.json")}),
			call("m2", "mcp__t__cat", map[string]any{"path": filepath.Join(e.ws, "wp-config.php")}),
			call("m3", "mcp__t__cat", map[string]any{"path": filepath.Join(e.ws, "hooks/notify.json")})),
		turn("Done."),
	))
	r := e.runEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "run", "--json", "--approval", "full-auto", "check the config")
	if r.code != 0 {
		t.Fatalf("agent run: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	tr := e.run("trace", id, "--json")
	ex := e.run("export", id)
	places := map[string]string{"--json stream": r.stdout, "stderr": r.stderr, "trace": tr.stdout, "export": ex.stdout}
	for i, rq := range e.srv.Requests() {
		places["model request "+string(rune('1'+i))] = string(rq.Body)
	}
	for what, s := range secrets {
		for where, text := range places {
			if strings.Contains(text, s) || strings.Contains(seenForm(text), s) {
				t.Errorf("%s (%s) reached the %s", what, s, where)
			}
		}
	}
	// The checks above could fail: the commands ran and their output, colour
	// codes and all, reached the model with placeholders in it.
	seen := seenForm(tr.stdout)
	for _, want := range []string{"password: [REDACTED:", `"client_secret": "[REDACTED:`, "hooks.slack.com/services/[REDACTED:slack-webhook:",
		"discord.com/api/webhooks/[REDACTED:discord-webhook:", "define('DB_PASSWORD', '[REDACTED:", "db.internal:5432:shop:app:[REDACTED:pgpass-password:",
		"REDIS_PASSWORD=[REDACTED:"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the trace does not show %q", want)
		}
	}
	mcpOut := 0
	for _, ev := range e.rawTrace(id) {
		if ev["type"] == "tool_result" && strings.HasPrefix(fmt.Sprint(ev["call_id"]), "m") && strings.Contains(fmt.Sprint(ev["output"]), "[REDACTED:") {
			mcpOut++
		}
	}
	if mcpOut != 3 {
		t.Errorf("%d of the MCP server's 3 answers show a placeholder: the server's answers did not carry the secrets", mcpOut)
	}
	if !strings.Contains(tr.stdout, `\u001b[`) {
		t.Errorf("no colour code in the trace: the commands' output was not coloured, the test proves nothing")
	}
}
