package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// credential is one planted value of the kinds issue 9 found passing in
// plain text: where it is, the placeholder kind it must come out as, and
// the byte strings that must appear nowhere.
type credential struct {
	kind    string
	file    string
	needles []string
}

// plantCredentials writes fresh credentials of every kind issue 9 (finding
// 2) names, in the files that hold them in real life, and returns the
// files and what must not leak.
func plantCredentials() (map[string]string, []credential) {
	files := map[string]string{}
	var creds []credential
	add := func(kind, file, content string, needles ...string) {
		files[file] = content
		creds = append(creds, credential{kind, file, needles})
	}
	const alnum = b62
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

	hf := "hf_" + rs(alnum, 34)
	add("huggingface-token", "ml/hub.py", "HF_TOKEN = \""+hf+"\"\n", hf)
	shp := "shpat_" + rs(hexLo, 32)
	add("shopify-token", "shop/config.rb", "SHOPIFY_ACCESS_TOKEN = \""+shp+"\"\n", shp)
	dop := "dop_v1_" + rs(hexLo, 64)
	add("digitalocean-token", "infra/do.tf", "provider \"digitalocean\" {\n  token = \""+dop+"\"\n}\n", dop)
	dapi := "dapi" + rs(hexLo, 32)
	add("databricks-token", "jobs/databricks.cfg", "[DEFAULT]\nhost = https://adb-1234.azuredatabricks.net\ntoken = "+dapi+"\n", dapi)
	mg := "key-" + rs(hexLo, 32)
	add("mailgun-key", "mail/send.js", "const mg = mailgun.client({ username: \"api\", key: \""+mg+"\" });\n", mg)
	tg := rs("0123456789", 10) + ":AA" + rs(b64u, 33)
	add("telegram-bot-token", "bot/main.py", "bot = telebot.TeleBot(\""+tg+"\")\n", tg)
	age := "AGE-SECRET-KEY-1" + rs("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
	add("age-secret-key", "keys/age.txt", "# created: 2026-11-01\n"+age+"\n", age)
	okta := "00" + rs(b64u, 40)
	add("okta-token", "scripts/okta.sh", "curl -H \"Authorization: SSWS "+okta+"\" https://corp.okta.com/api/v1/users\n", okta)
	vault := "s." + rs(alnum, 24)
	add("vault-token", "ops/vault.env", "VAULT_ADDR=https://vault.internal:8200\nVAULT_TOKEN="+vault+"\n", vault)
	sentry := rs(hexLo, 32)
	add("sentry-dsn", "app/sentry.go", "package app\n\nconst dsn = \"https://"+sentry+"@o123456.ingest.sentry.io/7654321\"\n", sentry)

	keyPEM := pem("RSA PRIVATE KEY", 600)
	kube := base64.StdEncoding.EncodeToString([]byte(keyPEM))
	add("private-key", "kube/config", "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: "+kube+"\n", kube, kube[:40], kube[len(kube)-40:])

	dockerPW := rs(alnum, 20)
	auth := base64.StdEncoding.EncodeToString([]byte("deploy:" + dockerPW))
	dj, _ := json.MarshalIndent(map[string]any{"auths": map[string]any{"registry.example.net": map[string]string{"auth": auth}}}, "", "  ")
	add("docker-auth", "docker/config.json", string(dj)+"\n", auth, dockerPW)

	gitPW := rs(alnum, 24)
	add("url-password", "home/.git-credentials", "https://ci-bot:"+gitPW+"@git.example.net\n", gitPW)
	netrcPW := rs(alnum+"!#%", 20)
	add("netrc-password", "home/.netrc", "machine api.example.net login deploy password "+netrcPW+"\n", netrcPW)

	azure := rs(b62+"+/", 86) + "=="
	add("generic-secret", "config/storage.yaml", "storage:\n  account: prodfiles\n  azure_storage_key: "+azure+"\n", azure)
	quoted := rs(letters, 20) // a password of letters only, as the finding's example
	add("generic-secret", "config/admin.ini", "[admin]\nadmin password = \""+quoted+"\"\n", quoted)
	var symbols string // letters and !#% without a digit
	for symbols == "" || !strings.ContainsAny(symbols, "!#%") {
		symbols = rs(letters+"!#%", 20)
	}
	add("generic-secret", "config/db.yaml", "database:\n  password: \""+symbols+"\"\n", symbols)
	k8s := base64.StdEncoding.EncodeToString(rb(24))
	add("kubernetes-secret", "deploy/secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  api-token: "+k8s+"\n", k8s)
	return files, creds
}

// The credential kinds that passed in plain text (issue 9, finding 2),
// planted fresh in a workspace, read by read_file and cat by a scripted
// model through the real binary, appear in none of: the requests the model
// server received, the --json stream, stderr, the SQLite journal (every
// file under AGENT_HOME, read raw), agent export's output and file.
func TestCredentialKindsRedactedEverywhere(t *testing.T) {
	files, creds := plantCredentials()
	e := &env{t: t, ws: gitRepo(t, files), home: filepath.Join(t.TempDir(), "state")}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var reads []map[string]any
	for i, n := range names {
		reads = append(reads, call("r"+string(rune('a'+i)), "read_file", map[string]any{"path": n}))
	}
	e.serve(script(
		turn("Reading the credentials files.", reads...),
		turn("Printing them.", call("x1", "run_command", map[string]any{"command": "cat " + strings.Join(names, " ") + "; grep -rn . home kube docker"})),
		turn("Audit done: rotate everything."),
	))

	r := e.run("run", "--json", "--approval", "full-auto", "audit the credentials in this repository")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model server got %d requests, want 3", len(reqs))
	}
	exFile := filepath.Join(t.TempDir(), "export.jsonl")
	ex := e.run("export", id)
	if ex.code != 0 || e.run("export", id, "-o", exFile).code != 0 {
		t.Fatalf("export: exit %d\n%s", ex.code, ex.stderr)
	}
	home := allFiles(t, e.home)
	if _, ok := home["agent.db"]; !ok {
		t.Fatalf("no agent.db under AGENT_HOME to check (files: %d)", len(home))
	}

	places := map[string][]byte{"--json stream": []byte(r.stdout), "stderr": []byte(r.stderr),
		"agent export stdout": []byte(ex.stdout), "agent export -o file": []byte(readFile(t, exFile))}
	for i, rq := range reqs {
		places["model request "+string(rune('1'+i))] = rq.Body
	}
	for rel, b := range home {
		places["$AGENT_HOME/"+rel] = b
	}
	for _, c := range creds {
		for _, n := range c.needles {
			for where, b := range places {
				if bytes.Contains(b, []byte(n)) {
					t.Errorf("%s from %s in plain text in %s", c.kind, c.file, where)
				}
			}
		}
	}

	// The check above could fail: every file went through both tools, and
	// each kind came out as its own placeholder in what the model saw.
	var evs []traceEvent
	e.mustJSON(&evs, "trace", id, "--json")
	calls := 0
	for _, ev := range evs {
		if ev.Type == "tool_result" {
			calls++
			if ev.Status != "ok" {
				t.Errorf("tool %s: %s %.200q", ev.CallID, ev.Status, ev.Output)
			}
		}
	}
	if calls != len(names)+1 {
		t.Errorf("%d tool results, want %d", calls, len(names)+1)
	}
	last := string(reqs[len(reqs)-1].Body)
	for _, c := range creds {
		if !strings.Contains(last, "[REDACTED:"+c.kind+":") {
			t.Errorf("the model never saw a [REDACTED:%s:...] placeholder (planted in %s)", c.kind, c.file)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "home/.netrc")); err != nil {
		t.Errorf("workspace file gone: %v", err)
	}
}
