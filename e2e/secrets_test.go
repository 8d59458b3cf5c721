package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Every secret here is made of fresh random values at test time (crypto/rand)
// in the formats the redaction engine detects, so no real credential is ever
// in the tree, and none could be matched by luck.

const (
	b62   = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b32   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexLo = "0123456789abcdef"
	b64u  = b62 + "-_"
)

func rs(alphabet string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			v, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
			if err != nil {
				panic(err)
			}
			b[i] = alphabet[v.Int64()]
		}
		s := string(b)
		// Like real keys: letters and digits mixed when the alphabet has both.
		const digits, letters = "0123456789", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		mixed := strings.ContainsAny(alphabet, digits) && strings.ContainsAny(alphabet, letters)
		if n < 8 || !mixed || strings.ContainsAny(s, digits) && strings.ContainsAny(s, letters) {
			return s
		}
	}
}

func rb(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

// checksummed is a GitHub/npm token: prefix + 30 random + base62 CRC-32.
func checksummed(prefix string) string {
	body := rs(b62, 30)
	c := crc32.ChecksumIEEE([]byte(body))
	var sum [6]byte
	for i := 5; i >= 0; i-- {
		sum[i] = b62[c%62]
		c /= 62
	}
	return prefix + body + string(sum[:])
}

func pem(label string, n int) string {
	body := base64.StdEncoding.EncodeToString(rb(n))
	var sb strings.Builder
	sb.WriteString("-----BEGIN " + label + "-----\n")
	for len(body) > 64 {
		sb.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	sb.WriteString(body + "\n-----END " + label + "-----\n")
	return sb.String()
}

func jwt() string {
	enc := base64.RawURLEncoding
	hdr := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":"` + rs(b64u, 12) + `"}`))
	claims := enc.EncodeToString([]byte(`{"sub":"` + rs("0123456789", 10) + `","scope":"read write","iat":1700000000}`))
	return hdr + "." + claims + "." + enc.EncodeToString(rb(32))
}

// secret is one planted value: needles are the byte strings that must
// never appear (a multi-line key is checked line by line, as encoders turn
// its newlines into \n).
type secret struct {
	kind    string
	where   string
	needles []string
}

type secretWorld struct {
	files   map[string]string
	env     []string
	prompt  string
	answer  string
	marker  string
	secrets []secret
}

func plantSecrets() *secretWorld {
	w := &secretWorld{files: map[string]string{}, marker: "marker-" + hex.EncodeToString(rb(10))}
	add := func(kind, where string, needles ...string) {
		w.secrets = append(w.secrets, secret{kind, where, needles})
	}
	pemLines := func(p string) []string {
		var out []string
		for _, l := range strings.Split(p, "\n") {
			if len(l) >= 32 && !strings.HasPrefix(l, "-----") {
				out = append(out, l)
			}
		}
		return out
	}

	awsID, awsSecret := "AKIA"+rs(b32, 16), base64.StdEncoding.EncodeToString(rb(30))
	stripe := "sk_live_" + rs(b62, 24)
	signing := rs(b62, 28) // only a .env value: caught because it is in .env
	w.files[".env"] = "# local settings\nAPP_ENV=development\nAWS_ACCESS_KEY_ID=" + awsID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret +
		"\nSTRIPE_KEY=" + stripe + "\nSESSION_SIGNING_VALUE=" + signing + "\nPORT=8080\n"
	add("aws-access-key-id", ".env", awsID)
	add("aws-secret-key", ".env", awsSecret)
	add("stripe-key", ".env", stripe)
	add("dotenv-value", ".env", signing)

	ghp, pat, gho, ghs := checksummed("ghp_"), "github_pat_"+rs(b62, 22)+"_"+rs(b62, 59), checksummed("gho_"), checksummed("ghs_")
	glpat := "glpat-" + rs(b64u, 20)
	xoxb := "xoxb-" + rs("0123456789", 12) + "-" + rs("0123456789", 13) + "-" + rs(b62, 24)
	hookSecret := rs(b62, 24)
	hook := "https://hooks.slack.com/services/T" + rs(b32, 10) + "/B" + rs(b32, 10) + "/" + hookSecret
	openai := "sk-proj-" + rs(b64u, 48)
	anthropic := "sk-ant-api03-" + rs(b64u, 93) + "AA"
	google := "AIza" + rs(b64u, 35)
	npm := checksummed("npm_")
	pypi := "pypi-AgEIcHlwaS5vcmc" + base64.RawURLEncoding.EncodeToString(rb(110))
	sendgrid := "SG." + rs(b64u, 22) + "." + rs(b64u, 43)
	twilioSID, twilioToken := "AC"+rs(hexLo, 32), rs(hexLo, 32)
	w.files["config/settings.yaml"] = "github:\n  token: " + ghp + "\n  fine_grained: " + pat + "\n  oauth: " + gho + "\n  app: " + ghs +
		"\ngitlab_token: " + glpat + "\nslack:\n  bot_token: " + xoxb + "\n  webhook: " + hook +
		"\nopenai_api_key: " + openai + "\nanthropic_api_key: " + anthropic + "\ngoogle_api_key: " + google +
		"\nnpm_token: " + npm + "\npypi_token: " + pypi + "\nsendgrid_api_key: " + sendgrid +
		"\ntwilio:\n  account_sid: " + twilioSID + "\n  auth_token: " + twilioToken + "\n"
	add("github-token", "settings.yaml", ghp)
	add("github-token", "settings.yaml", pat)
	add("github-token", "settings.yaml", gho)
	add("github-token", "settings.yaml", ghs)
	add("gitlab-token", "settings.yaml", glpat)
	add("slack-token", "settings.yaml", xoxb)
	add("slack-webhook", "settings.yaml", hookSecret)
	add("openai-key", "settings.yaml", openai)
	add("anthropic-key", "settings.yaml", anthropic)
	add("google-api-key", "settings.yaml", google)
	add("npm-token", "settings.yaml", npm)
	add("pypi-token", "settings.yaml", pypi)
	add("sendgrid-key", "settings.yaml", sendgrid)
	add("twilio", "settings.yaml", twilioSID, twilioToken)

	saKey := pem("PRIVATE KEY", 1190)
	saID := rs(hexLo, 40)
	sa, _ := json.MarshalIndent(map[string]string{"type": "service_account", "project_id": "demo-" + rs("abcdefghij", 6),
		"private_key_id": saID, "private_key": saKey, "client_email": "svc@demo.iam.gserviceaccount.com"}, "", "  ")
	w.files["config/service-account.json"] = string(sa) + "\n"
	add("gcp-service-account", "service-account.json", append([]string{saID}, pemLines(saKey)...)...)

	azureKey := base64.StdEncoding.EncodeToString(rb(64))
	w.files["config/azure.conf"] = "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acct" + rs("abcdefgh", 5) +
		";AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net\n"
	add("azure-storage-key", "azure.conf", azureKey)

	var dbs strings.Builder
	for _, scheme := range []string{"postgres", "mysql", "mongodb+srv", "amqps"} {
		pw := rs(b62, 20)
		dbs.WriteString(strings.ToUpper(strings.TrimSuffix(scheme, "+srv")) + "_DSN=" + scheme + "://app_user:" + pw + "@db-" + rs("abcdef", 4) + ".prod.internal:5432/app\n")
		add("db-url-password", "databases.conf", pw)
	}
	redisPW := rs(b62, 20)
	dbs.WriteString("cache = redis://:" + redisPW + "@cache:6379/0\n")
	add("db-url-password", "databases.conf", redisPW)
	genericPW := rs(b62, 10) + "!" + rs(b62, 10)
	dbs.WriteString("[smtp]\npassword = \"" + genericPW + "\"\n")
	add("generic-secret", "databases.conf", genericPW)
	w.files["config/databases.conf"] = dbs.String()

	deployKey := pem("OPENSSH PRIVATE KEY", 1800)
	w.files["keys/deploy_key"] = deployKey
	add("private-key", "keys/deploy_key", pemLines(deployKey)...)

	token := jwt()
	w.files["src/auth.js"] = "// session client\nconst idToken = \"" + token + "\";\nexport function header() { return `Bearer ${idToken}`; }\n"
	add("jwt", "src/auth.js", token)

	// The agent's own environment: values only the environment reveals.
	envToken, dbPW := rs(b62, 32), rs(b62, 18)
	w.env = []string{"MY_SERVICE_TOKEN=" + envToken, "DATABASE_URL=postgres://svc:" + dbPW + "@db.prod.internal:5432/main"}
	add("known-secret", "environment MY_SERVICE_TOKEN", envToken)
	add("known-secret", "environment DATABASE_URL", dbPW)

	// The prompt.
	promptToken, promptPW := "glpat-"+rs(b64u, 20), rs(b62, 12)+"#"+rs(b62, 8)
	w.prompt = "Audit the configuration (" + w.marker + "). The staging deploy token is " + promptToken +
		" and the admin password=" + promptPW + " and neither may be printed."
	add("gitlab-token", "prompt", promptToken)
	add("generic-secret", "prompt", promptPW)

	// Model output that quotes a secret (as a model might after reading it).
	w.answer = "Audit done. The AWS key " + awsID + " in .env should be rotated."
	return w
}

// leaks returns "kind (where) in name" for every needle found in b.
func (w *secretWorld) leaks(name string, b []byte) []string {
	var out []string
	for _, s := range w.secrets {
		for _, n := range s.needles {
			if bytes.Contains(b, []byte(n)) {
				out = append(out, s.kind+" ("+s.where+") in "+name)
				break
			}
		}
	}
	return out
}

func (w *secretWorld) script() string {
	return script(
		turn("Reading the configuration.",
			call("r1", "read_file", map[string]any{"path": ".env"}),
			call("r2", "read_file", map[string]any{"path": "config/settings.yaml"}),
			call("r3", "read_file", map[string]any{"path": "config/service-account.json"}),
			call("r4", "read_file", map[string]any{"path": "keys/deploy_key"}),
			call("r5", "read_file", map[string]any{"path": "src/auth.js"})),
		turn("Searching for credentials.",
			call("g1", "grep", map[string]any{"pattern": "(?i)key|token|password"}),
			call("x1", "run_command", map[string]any{"command": "cat .env config/*"}),
			call("x2", "run_command", map[string]any{"command": "env"})),
		turn("", call("w1", "write_file", map[string]any{"path": "AUDIT.md", "content": "Credentials found; rotate them.\n"})),
		turn(w.answer),
	)
}

// allFiles reads every file under root raw.
func allFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out[rel] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Secrets planted in workspace files, a .env, the agent's environment and the
// prompt, read by every tool and quoted by the model, appear in plain text in
// none of: the model requests, stdout, stderr, trace, export, runs, audit,
// checkpoints listing, agent redact's output, or any file under AGENT_HOME
// (the shadow repositories' object store holds workspace content only
// zlib-compressed, like the user's own .git; no secret is readable there raw).
func TestNoSecretInPlainTextAnywhere(t *testing.T) {
	w := plantSecrets()
	e := &env{t: t, ws: gitRepo(t, w.files), home: filepath.Join(t.TempDir(), "state")}
	e.serve(w.script())

	var leaks []string
	check := func(name string, b []byte) { leaks = append(leaks, w.leaks(name, b)...) }
	mustRun := func(args ...string) result {
		t.Helper()
		r := e.runEnv(w.env, args...)
		if r.code != 0 {
			t.Fatalf("agent %v: exit %d\n%s", args, r.code, r.stderr)
		}
		name := "agent " + args[0]
		if len(args) > 1 && strings.HasPrefix(args[1], "-") {
			name += " " + args[1]
		}
		check("stdout of "+name, []byte(r.stdout))
		check("stderr of "+name, []byte(r.stderr))
		return r
	}

	r := mustRun("run", "--json", "--approval", "full-auto", w.prompt)
	id := runID(t, r.stderr)
	if err := e.srv.Err(); err != nil {
		t.Errorf("model server saw a bad conversation: %v", err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Errorf("model server got %d requests, want 4", len(reqs))
	}
	for i, rq := range reqs {
		check("model request "+string(rune('1'+i)), rq.Body)
	}
	tr := mustRun("trace", id, "--json")
	mustRun("trace", id)
	mustRun("runs")
	mustRun("runs", "--json")
	mustRun("checkpoints", id, "--patch")
	mustRun("checkpoints", id, "--json")
	ex := mustRun("export", id)
	exFile := filepath.Join(t.TempDir(), "run.jsonl")
	mustRun("export", id, "-o", exFile)
	check("export file", []byte(readFile(t, exFile)))
	au := mustRun("audit", "--run", id, "--json")
	var rows []auditRow
	if err := json.Unmarshal([]byte(au.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	var exports []string
	for _, row := range rows {
		if row.Action == "export" {
			exports = append(exports, row.Detail)
		}
	}
	if len(exports) != 2 || !strings.Contains(exports[0], " to stdout:") || !strings.Contains(exports[1], " to "+exFile+":") {
		t.Errorf("audit export rows = %q, want one to stdout and one to %s", exports, exFile)
	}
	names := make([]string, 0, len(w.files))
	for n := range w.files {
		names = append(names, n)
	}
	sort.Strings(names)
	rd := mustRun(append([]string{"redact"}, names...)...)

	// Everything the agent keeps on disk, read raw.
	home := allFiles(t, e.home)
	objects := 0
	for rel, b := range home {
		check("$AGENT_HOME/"+rel, b)
		if strings.Contains(filepath.ToSlash(rel), ".git/objects/") {
			objects++
		}
	}
	for _, f := range []string{"agent.db", "redact.key"} {
		if _, ok := home[f]; !ok {
			t.Errorf("$AGENT_HOME/%s was not there to check (files: %d)", f, len(home))
		}
	}
	if objects == 0 {
		t.Errorf("no shadow repository objects under $AGENT_HOME: the run took no checkpoint to check")
	}
	for _, l := range leaks {
		t.Errorf("secret in plain text: %s", l)
	}

	// The checks above could fail: the secrets did flow through every tool
	// and came out as placeholders of their kinds.
	var evs []traceEvent
	if err := json.Unmarshal([]byte(tr.stdout), &evs); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, ev := range evs {
		if ev.Type == "tool_result" {
			if ev.Status != "ok" {
				t.Errorf("tool %s: %s %q", ev.CallID, ev.Status, ev.Output)
			}
			results[ev.CallID] = ev.Output
		}
	}
	// Commands get a scrubbed environment (issue 13): the credential
	// variables are not there to print, redacted or not.
	if strings.Contains(results["x2"], "MY_SERVICE_TOKEN=") || strings.Contains(results["x2"], "DATABASE_URL=") || !strings.Contains(results["x2"], "PATH=") {
		t.Errorf("env output shows a credential variable (or is not env's output):\n%s", results["x2"])
	}
	all := tr.stdout + ex.stdout + rd.stdout
	for _, s := range w.secrets {
		if s.where == "prompt" || strings.HasPrefix(s.where, "environment") {
			continue
		}
		if !strings.Contains(all, "[REDACTED:"+s.kind+":") {
			t.Errorf("no [REDACTED:%s:...] placeholder in the trace, export or agent redact output (planted in %s)", s.kind, s.where)
		}
	}
	// agent redact uses the install's key: the same secret, the same placeholder.
	fp := regexp.MustCompile(`AWS_ACCESS_KEY_ID=(\[REDACTED:aws-access-key-id:[0-9a-f]{8}\])`)
	if a, b := fp.FindStringSubmatch(rd.stdout), fp.FindStringSubmatch(tr.stdout); a == nil || b == nil || a[1] != b[1] {
		t.Errorf("the AWS key's placeholder differs between agent redact (%v) and the trace (%v)", a, b)
	}
	if !strings.Contains(tr.stdout, w.marker) {
		t.Errorf("the prompt's marker is missing from the trace: the prompt was not journaled")
	}
	if got := strings.Count(ex.stdout, "\n"); got != len(evs) {
		t.Errorf("export has %d lines, the trace %d events", got, len(evs))
	}
}

// The model's text, printed on stdout as the final answer and streamed to
// stderr as it arrives (-v), never shows a secret it quotes, also when the
// secret arrives split across stream chunks (the replay server sends text
// in chunks of 7 runes).
func TestStreamedModelTextHasNoSecret(t *testing.T) {
	w := plantSecrets()
	e := &env{t: t, ws: gitRepo(t, w.files), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(turn(w.answer)))
	r := e.runEnv(w.env, "run", "-v", "--approval", "full-auto", "check the keys")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "[REDACTED:aws-access-key-id:") {
		t.Errorf("the final answer on stdout does not show the quoted AWS key redacted: %q", r.stdout)
	}
	for _, l := range append(w.leaks("stdout", []byte(r.stdout)), w.leaks("stderr (-v stream)", []byte(r.stderr))...) {
		t.Errorf("secret in plain text: %s", l)
	}
}

// runStdin is run with stdin.
func (e *env) runStdin(stdin string, extra []string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(agentBin, args...)
	cmd.Env = e.environ(extra...)
	cmd.Dir = e.ws
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("agent %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}

// agent redact streams a large log from stdin with every secret replaced,
// the rest byte for byte; a missing file is exit 2 with nothing printed.
func TestRedactCommand(t *testing.T) {
	w := plantSecrets()
	e := &env{t: t, ws: gitRepo(t, w.files), home: filepath.Join(t.TempDir(), "state")}

	// ~1 MB of log lines with secrets at arbitrary offsets, so some straddle
	// the streaming writer's internal chunks.
	var in, want strings.Builder
	n := 0
	for i := 0; in.Len() < 1<<20; i++ {
		line := fmt.Sprintf("2026-03-14T09:26:%02d.%03dZ INFO [worker-%d] processed batch %d in %dms\n", i%60, i%1000, i%7, i, i%97)
		in.WriteString(line)
		want.WriteString(line)
		if i%37 == 0 {
			s := w.secrets[n%len(w.secrets)]
			n++
			if s.kind != "aws-access-key-id" && s.kind != "github-token" && s.kind != "stripe-key" && s.kind != "jwt" {
				continue
			}
			fmt.Fprintf(&in, "DEBUG loaded credential %s\n", s.needles[0])
			want.WriteString("DEBUG loaded credential [REDACTED:" + s.kind + ":")
			want.WriteString("\n")
		}
	}
	r := e.runStdin(in.String(), w.env, "redact")
	if r.code != 0 {
		t.Fatalf("redact: exit %d\n%s", r.code, r.stderr)
	}
	for _, l := range w.leaks("agent redact stdout", []byte(r.stdout)) {
		t.Errorf("secret in plain text: %s", l)
	}
	got := regexp.MustCompile(`\[REDACTED:([a-z-]+):[0-9a-f]{8}\]`).ReplaceAllString(r.stdout, "[REDACTED:$1:")
	if got != want.String() {
		t.Errorf("agent redact output differs from the input beyond the placeholders (%d bytes, want %d)", len(got), want.Len())
	}

	// The same key as the trace: a secret's placeholder is stable.
	r1 := e.run("redact", ".env")
	r2 := e.runStdin(w.files[".env"], nil, "redact", "-")
	if r1.code != 0 || r1.stdout != r2.stdout || !strings.Contains(r1.stdout, "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id:") {
		t.Errorf("redact .env: exit %d\n%s\nvia stdin:\n%s", r1.code, r1.stdout, r2.stdout)
	}

	r = e.run("redact", ".env", "no-such.log", "src/auth.js")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "no-such.log") {
		t.Errorf("redact with a missing file: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing printed, the file named", r.code, len(r.stdout), r.stderr)
	}
}
