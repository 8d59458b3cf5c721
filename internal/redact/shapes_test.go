package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// credentialGenerators are the credential shapes that passed in plain text
// before issue 9 (finding 2), as the files that hold them look: every one
// is a whole file, checked raw, as read_file numbers it, as grep -n prefixes
// it and between other files (docContexts).
var credentialGenerators = map[string][]genFunc{
	KindHuggingFaceToken: {func() sample {
		v := "hf_" + rsecret(alBase62, 34)
		return doc("ml/hub.py", "from huggingface_hub import login\nHF_TOKEN = \""+v+"\"\nlogin(HF_TOKEN)\n", v)
	}},
	KindShopifyToken: {func() sample {
		v := "shpat_" + rsecret(alHex, 32)
		return doc("shop/config.rb", "ShopifyAPI::Context.setup(\n  api_key: ENV['KEY'],\n  api_secret_key: ENV['SECRET'],\n)\nSHOPIFY_ACCESS_TOKEN = \""+v+"\"\n", v)
	}},
	KindDigitalOcean: {func() sample {
		v := "dop_v1_" + rsecret(alHex, 64)
		return doc("infra/do.tf", "provider \"digitalocean\" {\n  token = \""+v+"\"\n}\n", v)
	}},
	KindDatabricksToken: {func() sample {
		v := "dapi" + rsecret(alHex, 32)
		return doc("jobs/databricks.cfg", "[DEFAULT]\nhost = https://adb-1234.azuredatabricks.net\ntoken = "+v+"\n", v)
	}},
	KindMailgunKey: {func() sample {
		v := "key-" + rsecret(alHex, 32)
		return doc("mail/send.js", "const mg = mailgun.client({ username: \"api\", key: \""+v+"\" });\n", v)
	}},
	KindTelegramBotToken: {func() sample {
		v := rstr(alDigit, 10) + ":AA" + rsecret(alB64URL, 33)
		return doc("bot/main.py", "import telebot\n\nbot = telebot.TeleBot(\""+v+"\")\n", v)
	}, func() sample {
		v := rstr(alDigit, 9) + ":AA" + rsecret(alB64URL, 33)
		return doc("bot/send.sh", "curl -s \"https://api.telegram.org/bot"+v+"/sendMessage?chat_id=42&text=hi\"\n", v)
	}},
	KindAgeSecretKey: {func() sample {
		v := "AGE-SECRET-KEY-1" + rstr("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
		return doc("keys/age.txt", "# created: 2026-11-01T10:00:00Z\n# public key: age1"+rstr("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)+"\n"+v+"\n", v)
	}},
	KindOktaToken: {func() sample {
		v := "00" + rsecret(alB64URL, 40)
		return doc("scripts/okta.sh", "curl -H \"Authorization: SSWS "+v+"\" https://corp.okta.com/api/v1/users\n", v)
	}},
	KindVaultToken: {func() sample {
		v := "s." + rsecret(alBase62, 24)
		return doc("ops/vault.env", "VAULT_ADDR=https://vault.internal:8200\nVAULT_TOKEN="+v+"\n", v)
	}, func() sample {
		v := "s." + rsecret(alBase62, 24)
		return doc("ops/login.sh", "vault login "+v+"\ncurl -H \"X-Vault-Token: "+v+"\" https://vault.internal:8200/v1/secret/data/app\n", v)
	}},
	KindSentryDSN: {func() sample {
		v := rsecret(alHex, 32)
		return doc("app/sentry.go", "package app\n\nconst dsn = \"https://"+v+"@o"+rstr(alDigit, 6)+".ingest.sentry.io/"+rstr(alDigit, 7)+"\"\n", v)
	}},
	KindPrivateKey: {func() sample { // kubeconfig client-key-data: base64 of a PEM key
		pem := pemBlock(pick("RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"), 120+rnd(1100), 64) + "\n"
		v := base64.StdEncoding.EncodeToString([]byte(pem))
		cert := base64.StdEncoding.EncodeToString([]byte(pemBlock("CERTIFICATE", 600, 64)))
		return doc("kube/config", "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-certificate-data: "+cert+"\n    client-key-data: "+v+"\n", v)
	}, func() sample { // base64(1) of a key file, wrapped at 76
		pem := pemBlock("OPENSSH PRIVATE KEY", 300+rnd(900), 70) + "\n"
		enc := base64.StdEncoding.EncodeToString([]byte(pem))
		var lines []string
		for len(enc) > 76 {
			lines = append(lines, enc[:76])
			enc = enc[76:]
		}
		lines = append(lines, enc)
		return doc("id.b64", strings.Join(lines, "\n")+"\n", lines...)
	}},
	KindDockerAuth: {func() sample {
		v := base64.StdEncoding.EncodeToString([]byte("deploy:" + rsecret(alBase62, 20)))
		js, _ := json.MarshalIndent(map[string]any{"auths": map[string]any{"registry.example.net": map[string]string{"auth": v}}}, "", "  ")
		return doc("docker/config.json", string(js)+"\n", v)
	}},
	KindURLPassword: {func() sample {
		v := rsecret(alBase62, 24)
		return doc("home/.git-credentials", "https://ci-bot:"+v+"@git.example.net\nhttps://oauth2:"+rsecret(alBase62, 20)+"@gitlab.example.org\n", v)
	}, func() sample {
		v := rsecret(alBase62+"!~", 20)
		return doc("ci/push.sh", "git push https://deploy:"+v+"@git.acme.io/app.git HEAD:main\n", v)
	}},
	KindNetrcPassword: {func() sample {
		v := rsecret(alBase62+"!#%", 20)
		return doc("home/.netrc", "machine api.example.net login deploy password "+v+"\n", v)
	}, func() sample {
		v := rsecret(alBase62+"!#%", 20)
		return doc("home/.netrc", "machine ftp.acme.io\n  login ci\n  password "+v+"\n\ndefault login anonymous password guest@\n", v)
	}},
	KindGenericSecret: {func() sample { // a high-entropy value under a key-like name
		v := rstr(alB64, 86) + "=="
		return doc("config/storage.yaml", "storage:\n  account: prodfiles\n  azure_storage_key: "+v+"\n", v)
	}, func() sample {
		v := b64n(32)
		f := pick("[storage]\nsigning_key = %s\n", "signingKey = \"%s\"\n", "{\"encryptionKey\": \"%s\"}\n", "master-key: '%s'\n")
		return doc("conf/app.toml", fmt.Sprintf(f, v), v)
	}, func() sample { // a quoted password of letters only
		// Letters only are taken for a password when their case is random
		// (mixedCaseRandom: 15-85 % upper case); one draw in 2,500 has the
		// case of a word or a constant (CtwgnhjyehzfobEljhwc,
		// SAUiGEBJSNLZHCDWWoYW) and is, by design, not told from one: it is
		// drawn again.
		var v string
		for v == "" || !mixedCaseRandom([]byte(v)) {
			v = rstr(alUpper+alLower, 20)
		}
		return doc("conf/admin.ini", "[admin]\nuser = root\nadmin password = \""+v+"\"\n", v)
	}, func() sample { // letters and !#% without digits
		var v string
		for v == "" || strings.ContainsAny(v, alDigit) || !strings.ContainsAny(v, "!#%") {
			v = rstr(alUpper+alLower+"!#%", 20)
		}
		return doc("conf/db.yaml", "database:\n  user: app\n  password: \""+v+"\"\n", v)
	}},
	KindKubernetesSecret: {func() sample {
		a, c := b64n(18), base64.StdEncoding.EncodeToString([]byte(pemBlock("PRIVATE KEY", 600, 64)))
		return doc("k8s/secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\ndata:\n  tls.key: "+c+"\n  token: |\n    "+a+"\nstringData:\n  note: "+rsecret(alBase62, 12)+"\n", a, c[:60])
	}, func() sample { // kubectl get secret -o json
		a := b64n(24)
		return doc("out.json", "{\n  \"apiVersion\": \"v1\",\n  \"data\": {\n    \"password\": \""+a+"\"\n  },\n  \"kind\": \"Secret\",\n  \"metadata\": {\"name\": \"db\"}\n}\n", a)
	}},
}

// TestCredentialShapesLookalikes: look-alikes of the issue 9 shapes stay
// as they are.
func TestCredentialShapesLookalikes(t *testing.T) {
	r := New(Config{Key: testKey})
	for name, d := range map[string]string{
		"netrc struct":     "type netrcLine struct {\n\tmachine  string\n\tlogin    string\n\tpassword string\n}\n",
		"netrc prose":      "Enter your login and password when asked; the machine stays locked.\n",
		"kube cert":        "    client-certificate-data: " + base64.StdEncoding.EncodeToString([]byte(pemBlock("CERTIFICATE", 600, 64))) + "\n",
		"k8s other kind":   "kind: SecretProviderClass\nspec:\n  parameters:\n    objects: |\n      array:\n        - objectName: db\n",
		"mac address":      "ether 00:AA:bb:cc:dd:ee brd ff:ff:ff:ff:ff:ff\n",
		"vault elsewhere":  "s.Next(); s.AbcdefghijklmnopqrstuvwX = 1\n",
		"git ssh url":      "git@github.com:acme/app.git https://git@github.com/acme/app ssh://deploy@host:22/srv\n",
		"url doc password": "http://user:password@host http://username:p@ssword@google.com ftp://anonymous:${PASS}@ftp\n",
		"key names":        "ExtKeyUsageAny = asn1.ObjectIdentifier{2, 5, 29, 37, 0}\nkeyPrefix: \"app-cache-v1/\"\ncache_key: build-linux-amd64\n",
		"sequential key":   "key = \"0123456789abcdef\"\n",
		"docker no auth":   "{\"auths\": {\"ghcr.io\": {}}, \"credsStore\": \"desktop\"}\n",
		// Seen in third-party Go code (the module cache) while tuning the
		// key-like-name tier.
		"protobuf tag":    "Labels map[string]string `protobuf:\"bytes,4,rep,name=labels,proto3\" protobuf_key:\"bytes,1,opt,name=key,proto3\" protobuf_val:\"bytes,2,opt,name=value,proto3\"`\n",
		"go identifiers":  "clientAuth = tls.NoClientCert\nTransportCreds: transportCredsForS2A,\nProgressToken = Or_ProgressToken\nEarlyTokenRefresh: oldDo.EarlyTokenRefresh,\n",
		"generated names": "c.googlecloudaiplatformv1beta1counttokensrequest = googlecloudaiplatformv1beta1counttokensrequest\n",
		"env var names":   "accessTokenEnvVariable = \"S2A_ACCESS_TOKEN\"\nTokenTypeSAML2 = \"urn:ietf:params:oauth:token-type:saml2\"\n",
		"format strings":  "fmt.Printf(\"escaped key: %v\\ntokens: %v\\npointer: %v\\n\", a, b, c)\n",
		"go test output":  "--- PASS: TestGoList/GOPATH (0.03s)\n",
		"concatenation":   "\"<token>\"+generatedToken+\"</token>\",\n",
		"zone names":      "// Example key: zones/us-central1-a\n",
	} {
		for _, f := range r.Find([]byte(d)) {
			if !f.Example {
				t.Errorf("%s: false positive %s %q", name, f.Kind, d[f.Start:f.End])
			}
		}
	}
}
