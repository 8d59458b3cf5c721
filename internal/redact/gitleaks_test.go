package redact

import (
	"encoding/base64"
	"strings"
)

// gitleaksRule maps one rule id of gitleaks' default configuration
// (v8.30.1, config/gitleaks.toml, 222 rules) to the kind our engine names
// its findings, with a generator of fresh samples in the rule's token shape
// and context. No gitleaks code or pattern is used: the shapes are the
// vendors' token formats, written here as generators.
type gitleaksRule struct {
	id   string
	kind string
	gen  func() sample
	// none, if set, says why the rule has no content to redact.
	none string
}

func uuidUpper() string { return strings.ToUpper(uuid()) }

// gitleaksRules lists every rule id. TestGitleaksRuleIDs checks the list
// against gitleaks' own configuration when it is installed
// (scripts/bench-gitleaks.sh does that).
var gitleaksRules = []gitleaksRule{
	{id: "1password-secret-key", kind: "1password-secret-key", gen: func() sample {
		return kv("OP_SECRET_KEY", "A3-"+rsecret(alUpDigit, 6)+"-"+rsecret(alUpDigit, 11)+"-"+rsecret(alUpDigit, 5)+"-"+rsecret(alUpDigit, 5)+"-"+rsecret(alUpDigit, 5))
	}},
	{id: "1password-service-account-token", kind: "1password-token", gen: func() sample {
		return kv("OP_SERVICE_ACCOUNT_TOKEN", "ops_eyJ"+base64.RawStdEncoding.EncodeToString(rbytes(240)))
	}},
	{id: "adafruit-api-key", kind: "adafruit-key", gen: func() sample { return kv("ADAFRUIT_IO_KEY", rsecret(alLD+"_-", 32)) }},
	{id: "adobe-client-id", kind: "adobe-key", gen: func() sample { return kv("ADOBE_CLIENT_ID", rsecret(alHex, 32)) }},
	{id: "adobe-client-secret", kind: "adobe-key", gen: func() sample { return kv("ADOBE_SECRET", "p8e-"+rsecret(alBase62, 32)) }},
	{id: "age-secret-key", kind: KindAgeSecretKey, gen: func() sample {
		return kv("AGE_IDENTITY", "AGE-SECRET-KEY-1"+rstr("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))
	}},
	{id: "airtable-api-key", kind: "airtable-token", gen: func() sample { return kv("AIRTABLE_API_KEY", rsecret(alLD, 17)) }},
	{id: "airtable-personnal-access-token", kind: "airtable-token", gen: func() sample {
		return kv("AIRTABLE_TOKEN", "pat"+rsecret(alBase62, 14)+"."+rsecret(alHex, 64))
	}},
	{id: "algolia-api-key", kind: "algolia-key", gen: func() sample { return kv("ALGOLIA_ADMIN_KEY", rsecret(alLD, 32)) }},
	{id: "alibaba-access-key-id", kind: "alibaba-key", gen: func() sample { return kv("ACCESS_KEY_ID", "LTAI"+rsecret(alBase62, 20)) }},
	{id: "alibaba-secret-key", kind: "alibaba-key", gen: func() sample { return kv("ALIBABA_CLOUD_SECRET", rsecret(alLD, 30)) }},
	{id: "anthropic-admin-api-key", kind: KindAnthropicKey, gen: func() sample {
		return kv("ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-"+rsecret(alB64URL, 93)+"AA")
	}},
	{id: "anthropic-api-key", kind: KindAnthropicKey, gen: func() sample {
		return kv("ANTHROPIC_API_KEY", "sk-ant-api03-"+rsecret(alB64URL, 93)+"AA")
	}},
	{id: "artifactory-api-key", kind: "artifactory-token", gen: func() sample { return kv("RT_KEY", "AKCp"+rsecret(alBase62, 69)) }},
	{id: "artifactory-reference-token", kind: "artifactory-token", gen: func() sample { return kv("RT_REF", "cmVmd"+rsecret(alBase62, 59)) }},
	{id: "asana-client-id", kind: "asana-token", gen: func() sample { return kv("ASANA_CLIENT_ID", rstr(alDigit, 16)) }},
	{id: "asana-client-secret", kind: "asana-token", gen: func() sample { return kv("ASANA_CLIENT_SECRET", rsecret(alLD, 32)) }},
	{id: "atlassian-api-token", kind: "atlassian-token", gen: func() sample {
		if rnd(2) == 0 {
			return kv(pick("JIRA_API_TOKEN", "CONFLUENCE_TOKEN", "atlassian_token"), rsecret(alLD, 20)+rstr(alHex, 4))
		}
		return kv("ATL_TOKEN", "ATATT3"+rsecret(alB64URL+"=", 186))
	}},
	{id: "authress-service-client-access-key", kind: "authress-key", gen: func() sample {
		return kv("AUTHRESS_KEY", pick("sc_", "ext_", "authress_")+rsecret(alLD, 12)+"."+rsecret(alLD, 5)+".acc_"+rsecret(alLD, 20)+"."+rsecret(alB64URL, 64))
	}},
	{id: "aws-access-token", kind: KindAWSAccessKeyID, gen: func() sample {
		return kv("AWS_ACCESS_KEY_ID", pick("AKIA", "ASIA", "ABIA", "ACCA")+rsecret(alBase32, 16))
	}},
	{id: "aws-amazon-bedrock-api-key-long-lived", kind: "aws-bedrock-key", gen: func() sample {
		return kv("AWS_BEARER_TOKEN_BEDROCK", "ABSK"+b64n(100+rnd(90)))
	}},
	{id: "aws-amazon-bedrock-api-key-short-lived", kind: "aws-bedrock-key", gen: func() sample {
		return kv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"+b64n(300))
	}},
	{id: "azure-ad-client-secret", kind: "azure-ad-client-secret", gen: func() sample {
		return kv("AZURE_CLIENT_SECRET", rsecret(alBase62, 3)+rstr(alDigit, 1)+"Q~"+rsecret(alBase62+"_~.-", 34))
	}},
	{id: "beamer-api-token", kind: "beamer-token", gen: func() sample { return kv("BEAMER_API_KEY", "b_"+rsecret(alLD+"=_-", 44)) }},
	{id: "bitbucket-client-id", kind: "bitbucket-key", gen: func() sample { return kv("BITBUCKET_CLIENT_ID", rsecret(alLD, 32)) }},
	{id: "bitbucket-client-secret", kind: "bitbucket-key", gen: func() sample {
		return kv("BITBUCKET_CLIENT_SECRET", rsecret(alLD+"_-", 64))
	}},
	{id: "bittrex-access-key", kind: "bittrex-key", gen: func() sample { return kv("BITTREX_API_KEY", rsecret(alLD, 32)) }},
	{id: "bittrex-secret-key", kind: "bittrex-key", gen: func() sample { return kv("BITTREX_API_SECRET", rsecret(alLD, 32)) }},
	{id: "cisco-meraki-api-key", kind: "meraki-key", gen: func() sample { return kv("MERAKI_DASHBOARD_API_KEY", rsecret(alHex, 40)) }},
	{id: "clickhouse-cloud-api-secret-key", kind: "clickhouse-key", gen: func() sample { return kv("CH_KEY", "4b1d"+rsecret(alBase62, 38)) }},
	{id: "clojars-api-token", kind: "clojars-token", gen: func() sample { return kv("DEPLOY", "CLOJARS_"+rsecret(alLD, 60)) }},
	{id: "cloudflare-api-key", kind: "cloudflare-key", gen: func() sample { return kv("CLOUDFLARE_API_TOKEN", rsecret(alLD+"_-", 40)) }},
	{id: "cloudflare-global-api-key", kind: "cloudflare-key", gen: func() sample { return kv("CLOUDFLARE_API_KEY", rsecret(alHex, 37)) }},
	{id: "cloudflare-origin-ca-key", kind: "cloudflare-key", gen: func() sample {
		return kv("CF_ORIGIN_CA", "v1.0-"+rsecret(alHex, 24)+"-"+rsecret(alHex, 146))
	}},
	{id: "codecov-access-token", kind: "codecov-token", gen: func() sample { return kv("CODECOV_TOKEN", rsecret(alLD, 32)) }},
	{id: "cohere-api-token", kind: "cohere-key", gen: func() sample { return kv(pick("COHERE_API_KEY", "CO_API_KEY"), rsecret(alBase62, 40)) }},
	{id: "coinbase-access-token", kind: "coinbase-token", gen: func() sample { return kv("COINBASE_ACCESS_TOKEN", rsecret(alLD+"_-", 64)) }},
	{id: "confluent-access-token", kind: "confluent-key", gen: func() sample { return kv("CONFLUENT_API_KEY", rsecret(alLD, 16)) }},
	{id: "confluent-secret-key", kind: "confluent-key", gen: func() sample { return kv("CONFLUENT_SECRET", rsecret(alLD, 64)) }},
	{id: "contentful-delivery-api-token", kind: "contentful-token", gen: func() sample {
		return kv("CONTENTFUL_DELIVERY_TOKEN", rsecret(alLD+"=_-", 43))
	}},
	{id: "curl-auth-header", kind: KindGenericSecret, gen: func() sample {
		t := rsecret(alBase62+"-_.", 40)
		h := pick("Authorization: Bearer ", "Authorization: Token ", "X-API-Key: ", "Api-Token: ")
		return doc("scripts/call.sh", "#!/bin/sh\ncurl -sS -X POST \\\n  -H \"Content-Type: application/json\" \\\n  -H \""+h+t+"\" \\\n  https://api.acme.io/v1/jobs\n", t)
	}},
	{id: "curl-auth-user", kind: KindGenericSecret, gen: func() sample {
		pw := rsecret(alBase62+"!#%", 20)
		return doc("scripts/get.sh", "curl -fsSL "+pick("-u ", "--user ", "--user=")+"'deploy:"+pw+"' https://repo.acme.io/artifacts/app.tgz -o app.tgz\n", pw)
	}},
	{id: "databricks-api-token", kind: KindDatabricksToken, gen: func() sample { return kv("DATABRICKS_TOKEN", "dapi"+rsecret(alHex, 32)) }},
	{id: "datadog-access-token", kind: "datadog-key", gen: func() sample { return kv("DATADOG_APP_KEY", rsecret(alLD, 40)) }},
	{id: "defined-networking-api-token", kind: "defined-networking-token", gen: func() sample {
		return kv("DN_API_KEY", "dnkey-"+rsecret(alLD+"_-", 26)+"-"+rsecret(alLD+"_-", 52))
	}},
	{id: "digitalocean-access-token", kind: KindDigitalOcean, gen: func() sample { return kv("DO_TOKEN", "doo_v1_"+rsecret(alHex, 64)) }},
	{id: "digitalocean-pat", kind: KindDigitalOcean, gen: func() sample { return kv("DIGITALOCEAN_TOKEN", "dop_v1_"+rsecret(alHex, 64)) }},
	{id: "digitalocean-refresh-token", kind: KindDigitalOcean, gen: func() sample { return kv("DO_REFRESH", "dor_v1_"+rsecret(alHex, 64)) }},
	{id: "discord-api-token", kind: "discord-token", gen: func() sample { return kv("DISCORD_API_KEY", rsecret(alHex, 64)) }},
	{id: "discord-client-id", kind: "discord-token", gen: func() sample { return kv("DISCORD_CLIENT_ID", rstr(alDigit, 18)) }},
	{id: "discord-client-secret", kind: "discord-token", gen: func() sample { return kv("DISCORD_CLIENT_SECRET", rsecret(alLD+"_-", 32)) }},
	{id: "doppler-api-token", kind: "doppler-token", gen: func() sample { return kv("DOPPLER_TOKEN", "dp.pt."+rsecret(alBase62, 43)) }},
	{id: "droneci-access-token", kind: "droneci-token", gen: func() sample { return kv("DRONECI_TOKEN", rsecret(alLD, 32)) }},
	{id: "dropbox-api-token", kind: "dropbox-token", gen: func() sample { return kv("DROPBOX_APP_SECRET", rsecret(alLD, 15)) }},
	{id: "dropbox-long-lived-api-token", kind: "dropbox-token", gen: func() sample {
		return kv("DROPBOX_TOKEN", rsecret(alLD, 11)+"AAAAAAAAAA"+rsecret(alLD+"_-", 43))
	}},
	{id: "dropbox-short-lived-api-token", kind: "dropbox-token", gen: func() sample {
		return kv("DROPBOX_TOKEN", "sl."+rsecret(alLD+"_-", 135))
	}},
	{id: "duffel-api-token", kind: "duffel-token", gen: func() sample {
		return kv("DUFFEL_TOKEN", "duffel_"+pick("test", "live")+"_"+rsecret(alB64URL, 43))
	}},
	{id: "dynatrace-api-token", kind: "dynatrace-token", gen: func() sample {
		return kv("DT_API_TOKEN", "dt0c01."+rsecret(alUpDigit, 24)+"."+rsecret(alUpDigit, 64))
	}},
	{id: "easypost-api-token", kind: "easypost-token", gen: func() sample { return kv("EASYPOST_KEY", "EZAK"+rsecret(alBase62, 54)) }},
	{id: "easypost-test-api-token", kind: "easypost-token", gen: func() sample { return kv("EASYPOST_TEST", "EZTK"+rsecret(alBase62, 54)) }},
	{id: "etsy-access-token", kind: "etsy-token", gen: func() sample { return kv("ETSY_API_KEY", rsecret(alLD, 24)) }},
	{id: "facebook-access-token", kind: "facebook-token", gen: func() sample {
		return kv("FACEBOOK_APP_TOKEN", rstr(alDigit, 15)+"|"+rsecret(alB64URL, 27+rnd(14)))
	}},
	{id: "facebook-page-access-token", kind: "facebook-token", gen: func() sample {
		return kv("PAGE_TOKEN", pick("EAAM", "EAAC")+rsecret(alBase62, 120+rnd(80)))
	}},
	{id: "facebook-secret", kind: "facebook-token", gen: func() sample { return kv("FACEBOOK_APP_SECRET", rsecret(alHex, 32)) }},
	{id: "fastly-api-token", kind: "fastly-token", gen: func() sample { return kv("FASTLY_API_TOKEN", rsecret(alLD+"_-", 32)) }},
	{id: "finicity-api-token", kind: "finicity-token", gen: func() sample { return kv("FINICITY_APP_KEY", rsecret(alHex, 32)) }},
	{id: "finicity-client-secret", kind: "finicity-token", gen: func() sample { return kv("FINICITY_SECRET", rsecret(alLD, 20)) }},
	{id: "finnhub-access-token", kind: "finnhub-token", gen: func() sample { return kv("FINNHUB_TOKEN", rsecret(alLD, 20)) }},
	{id: "flickr-access-token", kind: "flickr-token", gen: func() sample { return kv("FLICKR_KEY", rsecret(alLD, 32)) }},
	{id: "flutterwave-encryption-key", kind: "flutterwave-key", gen: func() sample { return kv("FLW_ENC", "FLWSECK_TEST-"+rsecret(alAH, 12)) }},
	{id: "flutterwave-public-key", kind: "flutterwave-key", gen: func() sample {
		return kv("FLW_PUBLIC", "FLWPUBK_TEST-"+rsecret(alAH, 32)+"-X")
	}},
	{id: "flutterwave-secret-key", kind: "flutterwave-key", gen: func() sample {
		return kv("FLW_SECRET", "FLWSECK_TEST-"+rsecret(alAH, 32)+"-X")
	}},
	{id: "flyio-access-token", kind: "flyio-token", gen: func() sample {
		if rnd(2) == 0 {
			return kv("FLY_API_TOKEN", "fo1_"+rsecret(alB64URL, 43))
		}
		return kv("FLY_API_TOKEN", pick("fm1a_", "fm1r_", "fm2_")+b64n(120))
	}},
	{id: "frameio-api-token", kind: "frameio-token", gen: func() sample { return kv("FRAMEIO_TOKEN", "fio-u-"+rsecret(alB64URL, 64)) }},
	{id: "freemius-secret-key", kind: KindGenericSecret, gen: func() sample {
		v := "sk_" + rsecret(alBase62+"!#%;", 29)
		return doc("wp/init.php", "<?php\n$fs = fs_dynamic_init( array(\n    'id' => '1234',\n    'secret_key' => '"+v+"',\n) );\n", v)
	}},
	{id: "freshbooks-access-token", kind: "freshbooks-token", gen: func() sample { return kv("FRESHBOOKS_TOKEN", rsecret(alLD, 64)) }},
	{id: "gcp-api-key", kind: KindGoogleAPIKey, gen: func() sample { return kv("GOOGLE_API_KEY", "AIza"+rsecret(alB64URL, 35)) }},
	{id: "generic-api-key", kind: KindGenericSecret, gen: func() sample {
		// As in generators' generic-secret: a value that reads as a code
		// name or a chain of them (nahlbTereCSnaqz09, x6.VtpryAjaxkoZHV)
		// is, unquoted, code by design (codeName, memberChain).
		var v string
		for v == "" || codeName([]byte(v)) || memberChain([]byte(v)) {
			v = rsecret(alBase62+"-_.=", 16+rnd(40))
		}
		return kv(pick("api_key", "access_token", "client_secret", "password", "auth_token", "credentials", "secretKey", "apiKey"), v)
	}},
	{id: "github-app-token", kind: KindGitHubToken, gen: func() sample { return kv("GH_APP_TOKEN", checksummed(pick("ghu_", "ghs_"))) }},
	{id: "github-fine-grained-pat", kind: KindGitHubToken, gen: func() sample {
		return kv("GH_PAT", "github_pat_"+rsecret(alBase62, 22)+"_"+rsecret(alBase62, 59))
	}},
	{id: "github-oauth", kind: KindGitHubToken, gen: func() sample { return kv("GH_OAUTH", checksummed("gho_")) }},
	{id: "github-pat", kind: KindGitHubToken, gen: func() sample { return kv("GITHUB_TOKEN", checksummed("ghp_")) }},
	{id: "github-refresh-token", kind: KindGitHubToken, gen: func() sample { return kv("GH_REFRESH", checksummed("ghr_")) }},
	{id: "gitlab-cicd-job-token", kind: KindGitLabToken, gen: func() sample {
		return kv("CI_JOB_TOKEN", "glcbt-"+rsecret(alBase62, 1+rnd(5))+"_"+rsecret(alB64URL, 20))
	}},
	{id: "gitlab-deploy-token", kind: KindGitLabToken, gen: func() sample { return kv("DEPLOY_TOKEN", "gldt-"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-feature-flag-client-token", kind: KindGitLabToken, gen: func() sample { return kv("UNLEASH", "glffct-"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-feed-token", kind: KindGitLabToken, gen: func() sample { return kv("FEED", "glft-"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-incoming-mail-token", kind: KindGitLabToken, gen: func() sample { return kv("MAIL", "glimt-"+rsecret(alB64URL, 25)) }},
	{id: "gitlab-kubernetes-agent-token", kind: KindGitLabToken, gen: func() sample { return kv("AGENT", "glagent-"+rsecret(alB64URL, 50)) }},
	{id: "gitlab-oauth-app-secret", kind: KindGitLabToken, gen: func() sample { return kv("OAUTH_APP", "gloas-"+rsecret(alB64URL, 64)) }},
	{id: "gitlab-pat", kind: KindGitLabToken, gen: func() sample { return kv("GITLAB_TOKEN", "glpat-"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-pat-routable", kind: KindGitLabToken, gen: func() sample {
		return kv("GITLAB_TOKEN", "glpat-"+rsecret(alB64URL, 27+rnd(40))+"."+rstr(alLD, 2)+rsecret(alLD, 7))
	}},
	{id: "gitlab-ptt", kind: KindGitLabToken, gen: func() sample { return kv("TRIGGER", "glptt-"+rsecret(alHex, 40)) }},
	{id: "gitlab-rrt", kind: KindGitLabToken, gen: func() sample { return kv("RUNNER_REG", "GR1348941"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-runner-authentication-token", kind: KindGitLabToken, gen: func() sample { return kv("RUNNER", "glrt-"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-runner-authentication-token-routable", kind: KindGitLabToken, gen: func() sample {
		return kv("RUNNER", "glrt-t"+rstr(alDigit, 1)+"_"+rsecret(alB64URL, 27+rnd(30))+"."+rstr(alLD, 2)+rsecret(alLD, 7))
	}},
	{id: "gitlab-scim-token", kind: KindGitLabToken, gen: func() sample { return kv("SCIM", "glsoat-"+rsecret(alB64URL, 20)) }},
	{id: "gitlab-session-cookie", kind: KindGitLabToken, gen: func() sample {
		v := rsecret(alLD, 32)
		return sample{Name: "Cookie", Value: "_gitlab_session=" + v, Secret: v}
	}},
	{id: "gitter-access-token", kind: "gitter-token", gen: func() sample { return kv("GITTER_TOKEN", rsecret(alLD+"_-", 40)) }},
	{id: "gocardless-api-token", kind: "gocardless-token", gen: func() sample {
		return kv("GOCARDLESS_ACCESS_TOKEN", "live_"+rsecret(alLD+"_=-", 40))
	}},
	{id: "grafana-api-key", kind: "grafana-token", gen: func() sample { return kv("GRAFANA_KEY", "eyJrIjoi"+rsecret(alBase62, 70+rnd(60))) }},
	{id: "grafana-cloud-api-token", kind: "grafana-token", gen: func() sample { return kv("GRAFANA_CLOUD", "glc_"+b64n(40+rnd(60))) }},
	{id: "grafana-service-account-token", kind: "grafana-token", gen: func() sample {
		return kv("GRAFANA_SA", "glsa_"+rsecret(alBase62, 32)+"_"+rsecret(alHex, 8))
	}},
	{id: "harness-api-key", kind: "harness-token", gen: func() sample {
		return kv("HARNESS_KEY", pick("pat.", "sat.")+rsecret(alB64URL, 22)+"."+rsecret(alBase62, 24)+"."+rsecret(alBase62, 20))
	}},
	{id: "hashicorp-tf-api-token", kind: "terraform-token", gen: func() sample {
		return kv("TF_TOKEN", rsecret(alLD, 14)+".atlasv1."+rsecret(alB64URL, 60+rnd(11)))
	}},
	{id: "hashicorp-tf-password", kind: KindGenericSecret, gen: func() sample {
		pw := rsecret(alLD+"=_-", 8+rnd(13))
		for entropy([]byte(pw)) < 2 { // the rule's own entropy floor is part of its shape
			pw = rsecret(alLD+"=_-", 8+rnd(13))
		}
		return doc("main.tf", "resource \"azurerm_mssql_server\" \"db\" {\n  name = \"sql-prod\"\n  administrator_login          = \"sqladmin\"\n  administrator_login_password = \""+pw+"\"\n}\n", pw)
	}},
	{id: "heroku-api-key", kind: "heroku-key", gen: func() sample { return kv("HEROKU_API_KEY", uuid()) }},
	{id: "heroku-api-key-v2", kind: "heroku-key", gen: func() sample { return kv("HEROKU_TOKEN", "HRKU-AA"+rsecret(alB64URL, 58)) }},
	{id: "hubspot-api-key", kind: "hubspot-key", gen: func() sample { return kv("HUBSPOT_API_KEY", uuidUpper()) }},
	{id: "huggingface-access-token", kind: KindHuggingFaceToken, gen: func() sample { return kv("HF_TOKEN", "hf_"+rstr(alUpper+alLower, 34)) }},
	{id: "huggingface-organization-api-token", kind: KindHuggingFaceToken, gen: func() sample {
		return kv("HF_ORG_TOKEN", "api_org_"+rstr(alUpper+alLower, 34))
	}},
	{id: "infracost-api-token", kind: "infracost-token", gen: func() sample { return kv("INFRACOST_API_KEY", "ico-"+rsecret(alBase62, 32)) }},
	{id: "intercom-api-key", kind: "intercom-key", gen: func() sample { return kv("INTERCOM_ACCESS_TOKEN", rsecret(alLD+"=_-", 60)) }},
	{id: "intra42-client-secret", kind: "intra42-secret", gen: func() sample {
		return kv("FT_SECRET", pick("s-s4t2ud-", "s-s4t2af-")+rsecret(alHex, 64))
	}},
	{id: "jfrog-api-key", kind: "jfrog-key", gen: func() sample { return kv("JFROG_API_KEY", rsecret(alLD, 73)) }},
	{id: "jfrog-identity-token", kind: "jfrog-key", gen: func() sample { return kv("JFROG_IDENTITY_TOKEN", rsecret(alLD, 64)) }},
	{id: "jwt", kind: KindJWT, gen: func() sample { return kv("id_token", jwtToken()) }},
	{id: "jwt-base64", kind: KindJWT, gen: func() sample {
		return kv("SA_TOKEN_B64", base64.StdEncoding.EncodeToString([]byte(jwtToken())))
	}},
	{id: "kraken-access-token", kind: "kraken-key", gen: func() sample { return kv("KRAKEN_API_SECRET", b64n(64)) }},
	{id: "kubernetes-secret-yaml", kind: KindKubernetesSecret, gen: func() sample {
		pw, tok := base64.StdEncoding.EncodeToString([]byte(rsecret(alBase62, 20))), b64n(30)
		return doc("deploy/secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-credentials\n  namespace: prod\ntype: Opaque\ndata:\n  password: "+pw+"\n  api-token: "+tok+"\n", pw, tok)
	}},
	{id: "kucoin-access-token", kind: "kucoin-key", gen: func() sample { return kv("KUCOIN_API_KEY", rsecret(alHex, 24)) }},
	{id: "kucoin-secret-key", kind: "kucoin-key", gen: func() sample { return kv("KUCOIN_API_SECRET", uuid()) }},
	{id: "launchdarkly-access-token", kind: "launchdarkly-token", gen: func() sample {
		return kv("LAUNCHDARKLY_ACCESS_TOKEN", rsecret(alLD+"=_-", 40))
	}},
	{id: "linear-api-key", kind: "linear-key", gen: func() sample { return kv("LINEAR_KEY", "lin_api_"+rsecret(alBase62, 40)) }},
	{id: "linear-client-secret", kind: "linear-key", gen: func() sample { return kv("LINEAR_CLIENT_SECRET", rsecret(alHex, 32)) }},
	{id: "linkedin-client-id", kind: "linkedin-key", gen: func() sample { return kv("LINKEDIN_CLIENT_ID", rsecret(alLD, 14)) }},
	{id: "linkedin-client-secret", kind: "linkedin-key", gen: func() sample { return kv("LINKEDIN_CLIENT_SECRET", rsecret(alLD, 16)) }},
	{id: "lob-api-key", kind: "lob-key", gen: func() sample { return kv("LOB_API_KEY", pick("live_", "test_")+rsecret(alHex, 35)) }},
	{id: "lob-pub-api-key", kind: "lob-key", gen: func() sample { return kv("LOB_PUB_KEY", pick("live_pub_", "test_pub_")+rsecret(alHex, 31)) }},
	{id: "looker-client-id", kind: "looker-key", gen: func() sample { return kv("LOOKER_CLIENT_ID", rsecret(alLD, 20)) }},
	{id: "looker-client-secret", kind: "looker-key", gen: func() sample { return kv("LOOKER_CLIENT_SECRET", rsecret(alLD, 24)) }},
	{id: "mailchimp-api-key", kind: "mailchimp-key", gen: func() sample {
		return kv("MAILCHIMP_API_KEY", rsecret(alHex, 32)+"-us"+rstr(alDigit, 2))
	}},
	{id: "mailgun-private-api-token", kind: KindMailgunKey, gen: func() sample { return kv("MAILGUN_API_KEY", "key-"+rsecret(alHex, 32)) }},
	{id: "mailgun-pub-key", kind: KindMailgunKey, gen: func() sample { return kv("MAILGUN_PUBLIC_KEY", "pubkey-"+rsecret(alHex, 32)) }},
	{id: "mailgun-signing-key", kind: KindMailgunKey, gen: func() sample {
		return kv("MAILGUN_SIGNING_KEY", rsecret(alAH, 32)+"-"+rsecret(alAH, 8)+"-"+rsecret(alAH, 8))
	}},
	{id: "mapbox-api-token", kind: "mapbox-token", gen: func() sample {
		return kv("MAPBOX_TOKEN", "pk."+rsecret(alLD, 60)+"."+rsecret(alLD, 22))
	}},
	{id: "mattermost-access-token", kind: "mattermost-token", gen: func() sample { return kv("MATTERMOST_TOKEN", rsecret(alLD, 26)) }},
	{id: "maxmind-license-key", kind: "maxmind-key", gen: func() sample {
		return kv("MAXMIND_LICENSE", rsecret(alBase62, 6)+"_"+rsecret(alBase62, 29)+"_mmk")
	}},
	{id: "messagebird-api-token", kind: "messagebird-key", gen: func() sample { return kv("MESSAGEBIRD_API_KEY", rsecret(alLD, 25)) }},
	{id: "messagebird-client-id", kind: "messagebird-key", gen: func() sample { return kv("MESSAGEBIRD_CLIENT_ID", uuid()) }},
	{id: "microsoft-teams-webhook", kind: "teams-webhook", gen: func() sample {
		path := uuid() + "@" + uuid() + "/IncomingWebhook/" + rsecret(alHex, 32) + "/" + uuid()
		return sample{Name: "TEAMS_WEBHOOK", Value: "https://acme.webhook.office.com/webhookb2/" + path, Secret: path, Exact: true}
	}},
	{id: "netlify-access-token", kind: "netlify-token", gen: func() sample { return kv("NETLIFY_AUTH_TOKEN", rsecret(alLD+"=_-", 40+rnd(7))) }},
	{id: "new-relic-browser-api-token", kind: "newrelic-key", gen: func() sample { return kv("NEW_RELIC_BROWSER_KEY", "NRJS-"+rsecret(alHex, 19)) }},
	{id: "new-relic-insert-key", kind: "newrelic-key", gen: func() sample { return kv("NEWRELIC_INSERT_KEY", "NRII-"+rsecret(alLD+"-", 32)) }},
	{id: "new-relic-user-api-id", kind: "newrelic-key", gen: func() sample { return kv("NEW_RELIC_USER_ID", rsecret(alLD, 64)) }},
	{id: "new-relic-user-api-key", kind: "newrelic-key", gen: func() sample { return kv("NEW_RELIC_API_KEY", "NRAK-"+rsecret(alUpDigit, 27)) }},
	{id: "notion-api-token", kind: "notion-token", gen: func() sample { return kv("NOTION_TOKEN", "ntn_"+rstr(alDigit, 11)+rsecret(alBase62, 35)) }},
	{id: "npm-access-token", kind: KindNPMToken, gen: func() sample { return kv("NPM_TOKEN", checksummed("npm_")) }},
	{id: "nuget-config-password", kind: KindNuGetPassword, gen: func() sample {
		pw := rsecret(alBase62+"!#%", 12+rnd(12))
		return doc("NuGet.Config", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  <packageSourceCredentials>\n    <feed>\n      <add key=\"Username\" value=\"ci\" />\n      <add key=\""+pick("ClearTextPassword", "Password")+"\" value=\""+pw+"\" />\n    </feed>\n  </packageSourceCredentials>\n</configuration>\n", pw)
	}},
	{id: "nytimes-access-token", kind: "nytimes-token", gen: func() sample { return kv("NYTIMES_API_KEY", rsecret(alLD+"=_-", 32)) }},
	{id: "octopus-deploy-api-key", kind: "octopus-key", gen: func() sample { return kv("OCTOPUS_CLI_API_KEY", "API-"+rsecret(alUpDigit, 26)) }},
	{id: "okta-access-token", kind: KindOktaToken, gen: func() sample { return kv("OKTA_API_TOKEN", "00"+rsecret(alB64URL, 40)) }},
	{id: "openai-api-key", kind: KindOpenAIKey, gen: func() sample {
		if rnd(2) == 0 {
			return kv("OPENAI_API_KEY", "sk-"+rsecret(alBase62, 20)+"T3BlbkFJ"+rsecret(alBase62, 20))
		}
		n := pick(58, 74)
		return kv("OPENAI_API_KEY", pick("sk-proj-", "sk-svcacct-", "sk-admin-")+rsecret(alB64URL, n)+"T3BlbkFJ"+rsecret(alB64URL, n))
	}},
	{id: "openshift-user-token", kind: "openshift-token", gen: func() sample { return kv("OC_TOKEN", "sha256~"+rsecret(alB64URL, 43)) }},
	{id: "perplexity-api-key", kind: "perplexity-key", gen: func() sample { return kv("PPLX_KEY", "pplx-"+rsecret(alBase62, 48)) }},
	{id: "pkcs12-file", none: "a path rule (*.p12, *.pfx): the files are binary, and read_file and grep never show binary content"},
	{id: "plaid-api-token", kind: "plaid-key", gen: func() sample {
		return kv("PLAID_ACCESS_TOKEN", "access-"+pick("sandbox", "development", "production")+"-"+uuid())
	}},
	{id: "plaid-client-id", kind: "plaid-key", gen: func() sample { return kv("PLAID_CLIENT_ID", rsecret(alLD, 24)) }},
	{id: "plaid-secret-key", kind: "plaid-key", gen: func() sample { return kv("PLAID_SECRET", rsecret(alLD, 30)) }},
	{id: "planetscale-api-token", kind: "planetscale-token", gen: func() sample { return kv("PS_TOKEN", "pscale_tkn_"+rsecret(alB64URL, 43)) }},
	{id: "planetscale-oauth-token", kind: "planetscale-token", gen: func() sample { return kv("PS_OAUTH", "pscale_oauth_"+rsecret(alB64URL, 43)) }},
	{id: "planetscale-password", kind: "planetscale-token", gen: func() sample { return kv("PS_PW", "pscale_pw_"+rsecret(alB64URL, 43)) }},
	{id: "postman-api-token", kind: "postman-token", gen: func() sample {
		return kv("POSTMAN_API_KEY", "PMAK-"+rsecret(alHex, 24)+"-"+rsecret(alHex, 34))
	}},
	{id: "prefect-api-token", kind: "prefect-token", gen: func() sample { return kv("PREFECT_API_KEY", "pnu_"+rsecret(alBase62, 36)) }},
	{id: "private-key", kind: KindPrivateKey, gen: func() sample {
		k := pemBlock(pick("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PGP PRIVATE KEY BLOCK"), 300+rnd(900), 64)
		return doc("keys/id_key", k+"\n", pemNeedles(k)...)
	}},
	{id: "privateai-api-token", kind: "privateai-key", gen: func() sample { return kv("PRIVATEAI_API_KEY", rsecret(alLD, 32)) }},
	{id: "pulumi-api-token", kind: "pulumi-token", gen: func() sample { return kv("PULUMI_ACCESS_TOKEN", "pul-"+rsecret(alHex, 40)) }},
	{id: "pypi-upload-token", kind: KindPyPIToken, gen: func() sample {
		return kv("PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc"+base64.RawURLEncoding.EncodeToString(rbytes(110)))
	}},
	{id: "rapidapi-access-token", kind: "rapidapi-key", gen: func() sample { return kv("RAPIDAPI_KEY", rsecret(alLD+"_-", 50)) }},
	{id: "readme-api-token", kind: "readme-token", gen: func() sample { return kv("README_API_KEY", "rdme_"+rsecret(alLD, 70)) }},
	{id: "rubygems-api-token", kind: "rubygems-token", gen: func() sample { return kv("GEM_HOST_API_KEY", "rubygems_"+rsecret(alHex, 48)) }},
	{id: "scalingo-api-token", kind: "scalingo-token", gen: func() sample { return kv("SCALINGO_TOKEN", "tk-us-"+rsecret(alB64URL, 48)) }},
	{id: "sendbird-access-id", kind: "sendbird-token", gen: func() sample { return kv("SENDBIRD_APP_ID", uuid()) }},
	{id: "sendbird-access-token", kind: "sendbird-token", gen: func() sample { return kv("SENDBIRD_API_TOKEN", rsecret(alHex, 40)) }},
	{id: "sendgrid-api-token", kind: KindSendGridKey, gen: func() sample {
		return kv("SENDGRID_API_KEY", "SG."+rsecret(alB64URL, 22)+"."+rsecret(alB64URL, 43))
	}},
	{id: "sendinblue-api-token", kind: "brevo-key", gen: func() sample {
		return kv("BREVO_API_KEY", "xkeysib-"+rsecret(alHex, 64)+"-"+rsecret(alBase62, 16))
	}},
	{id: "sentry-access-token", kind: "sentry-token", gen: func() sample { return kv("SENTRY_AUTH_TOKEN", rsecret(alHex, 64)) }},
	{id: "sentry-org-token", kind: "sentry-token", gen: func() sample {
		return kv("SENTRY_AUTH_TOKEN", "sntrys_eyJpYXQiO"+rsecret(alB64, 30)+pick("LCJyZWdpb25fdXJs", "InJlZ2lvbl91cmwi")+rsecret(alB64, 60)+"_"+rsecret(alB64, 43))
	}},
	{id: "sentry-user-token", kind: "sentry-token", gen: func() sample { return kv("SENTRY_TOKEN", "sntryu_"+rsecret(alHex, 64)) }},
	{id: "settlemint-application-access-token", kind: "settlemint-token", gen: func() sample { return kv("SM_AAT", "sm_aat_"+rsecret(alBase62, 16)) }},
	{id: "settlemint-personal-access-token", kind: "settlemint-token", gen: func() sample { return kv("SM_PAT", "sm_pat_"+rsecret(alBase62, 16)) }},
	{id: "settlemint-service-access-token", kind: "settlemint-token", gen: func() sample { return kv("SM_SAT", "sm_sat_"+rsecret(alBase62, 16)) }},
	{id: "shippo-api-token", kind: "shippo-token", gen: func() sample { return kv("SHIPPO_TOKEN", "shippo_"+pick("live", "test")+"_"+rsecret(alHex, 40)) }},
	{id: "shopify-access-token", kind: KindShopifyToken, gen: func() sample { return kv("SHOPIFY_ACCESS_TOKEN", "shpat_"+rsecret(alHex, 32)) }},
	{id: "shopify-custom-access-token", kind: KindShopifyToken, gen: func() sample { return kv("SHOPIFY_CUSTOM", "shpca_"+rsecret(alHex, 32)) }},
	{id: "shopify-private-app-access-token", kind: KindShopifyToken, gen: func() sample { return kv("SHOPIFY_PRIVATE", "shppa_"+rsecret(alHex, 32)) }},
	{id: "shopify-shared-secret", kind: KindShopifyToken, gen: func() sample { return kv("SHOPIFY_SHARED", "shpss_"+rsecret(alHex, 32)) }},
	{id: "sidekiq-secret", kind: "sidekiq-secret", gen: func() sample {
		return kv(pick("BUNDLE_ENTERPRISE__CONTRIBSYS__COM", "BUNDLE_GEMS__CONTRIBSYS__COM"), rsecret(alHex, 8)+":"+rsecret(alHex, 8))
	}},
	{id: "sidekiq-sensitive-url", kind: "sidekiq-secret", gen: func() sample {
		c := rsecret(alHex, 8) + ":" + rsecret(alHex, 8)
		return sample{Name: "SIDEKIQ_SOURCE", Value: "https://" + c + "@" + pick("gems", "enterprise") + ".contribsys.com/", Secret: c, Exact: true}
	}},
	{id: "slack-app-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_APP_TOKEN", "xapp-1-A"+rsecret(alUpDigit, 10)+"-"+rstr(alDigit, 13)+"-"+rsecret(alLD, 64))
	}},
	{id: "slack-bot-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_BOT_TOKEN", "xoxb-"+rstr(alDigit, 12)+"-"+rstr(alDigit, 13)+"-"+rsecret(alBase62, 24))
	}},
	{id: "slack-config-access-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_CONFIG_TOKEN", pick("xoxe.xoxp-1-", "xoxe.xoxb-1-")+rsecret(alUpDigit, 163+rnd(4)))
	}},
	{id: "slack-config-refresh-token", kind: KindSlackToken, gen: func() sample { return kv("SLACK_REFRESH", "xoxe-1-"+rsecret(alUpDigit, 146)) }},
	{id: "slack-legacy-bot-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_LEGACY_BOT", "xoxb-"+rstr(alDigit, 10)+"-"+rsecret(alBase62, 24))
	}},
	{id: "slack-legacy-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_LEGACY", pick("xoxo-", "xoxs-")+rstr(alDigit, 10)+"-"+rstr(alDigit, 11)+"-"+rstr(alDigit, 12)+"-"+rsecret(alHex, 64))
	}},
	{id: "slack-legacy-workspace-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_WORKSPACE", pick("xoxa-", "xoxr-")+pick("", "2-")+rsecret(alBase62, 30+rnd(18)))
	}},
	{id: "slack-user-token", kind: KindSlackToken, gen: func() sample {
		return kv("SLACK_USER_TOKEN", "xoxp-"+rstr(alDigit, 12)+"-"+rstr(alDigit, 12)+"-"+rstr(alDigit, 13)+"-"+rsecret(alBase62, 32))
	}},
	{id: "slack-webhook-url", kind: KindSlackWebhook, gen: func() sample {
		path := "T" + rstr(alUpDigit, 10) + "/B" + rstr(alUpDigit, 10) + "/" + rsecret(alBase62, 24)
		return sample{Name: "SLACK_WEBHOOK_URL", Value: "https://hooks.slack.com/services/" + path, Secret: path, Exact: true}
	}},
	{id: "snyk-api-token", kind: "snyk-token", gen: func() sample { return kv("SNYK_TOKEN", uuid()) }},
	{id: "sonar-api-token", kind: "sonar-token", gen: func() sample { return kv("SONAR_TOKEN", pick("squ_", "sqp_", "sqa_", "")+rsecret(alHex, 40)) }},
	{id: "sourcegraph-access-token", kind: "sourcegraph-token", gen: func() sample {
		if rnd(2) == 0 {
			return kv("SRC_ACCESS_TOKEN", "sgp_"+rsecret(alHex, 16)+"_"+rsecret(alHex, 40))
		}
		return kv("SOURCEGRAPH_TOKEN", rsecret(alHex, 40))
	}},
	{id: "square-access-token", kind: "square-token", gen: func() sample {
		return kv("SQUARE_ACCESS_TOKEN", pick("EAAA", "sq0atp-")+rsecret(alB64URL, 22+rnd(39)))
	}},
	{id: "squarespace-access-token", kind: "squarespace-token", gen: func() sample { return kv("SQUARESPACE_API_KEY", uuid()) }},
	{id: "stripe-access-token", kind: KindStripeKey, gen: func() sample {
		return kv("STRIPE_KEY", pick("sk_", "rk_")+pick("live_", "test_", "prod_")+rsecret(alBase62, 24+rnd(76)))
	}},
	{id: "sumologic-access-id", kind: "sumologic-key", gen: func() sample { return kv("SUMO_ACCESS_ID", "su"+rsecret(alBase62, 12)) }},
	{id: "sumologic-access-token", kind: "sumologic-key", gen: func() sample { return kv("SUMO_ACCESS_KEY", rsecret(alLD, 64)) }},
	{id: "telegram-bot-api-token", kind: KindTelegramBotToken, gen: func() sample {
		return kv("TELEGRAM_BOT_TOKEN", rstr(alDigit, 10)+":A"+rsecret(alB64URL, 34))
	}},
	{id: "travisci-access-token", kind: "travis-token", gen: func() sample { return kv("TRAVIS_TOKEN", rsecret(alLD, 22)) }},
	{id: "twilio-api-key", kind: KindTwilio, gen: func() sample { return kv("API_KEY_SID", "SK"+rsecret(alHex, 32)) }},
	{id: "twitch-api-token", kind: "twitch-token", gen: func() sample { return kv("TWITCH_CLIENT_SECRET", rsecret(alLD, 30)) }},
	{id: "twitter-access-secret", kind: "twitter-token", gen: func() sample { return kv("TWITTER_ACCESS_SECRET", rsecret(alLD, 45)) }},
	{id: "twitter-access-token", kind: "twitter-token", gen: func() sample {
		return kv("TWITTER_ACCESS_TOKEN", rstr(alDigit, 19)+"-"+rsecret(alBase62, 30))
	}},
	{id: "twitter-api-key", kind: "twitter-token", gen: func() sample { return kv("TWITTER_API_KEY", rsecret(alLD, 25)) }},
	{id: "twitter-api-secret", kind: "twitter-token", gen: func() sample { return kv("TWITTER_API_SECRET", rsecret(alLD, 50)) }},
	{id: "twitter-bearer-token", kind: "twitter-token", gen: func() sample {
		return kv("TWITTER_BEARER_TOKEN", strings.Repeat("A", 22)+rsecret(alBase62+"%", 90))
	}},
	{id: "typeform-api-token", kind: "typeform-token", gen: func() sample { return kv("TYPEFORM_TOKEN", "tfp_"+rsecret(alLD+"_.=-", 59)) }},
	{id: "vault-batch-token", kind: KindVaultToken, gen: func() sample { return kv("VAULT_TOKEN", "hvb."+rsecret(alB64URL, 140+rnd(100))) }},
	{id: "vault-service-token", kind: KindVaultToken, gen: func() sample {
		if rnd(2) == 0 {
			return kv("VAULT_TOKEN", "hvs."+rsecret(alB64URL, 90+rnd(30)))
		}
		return kv("VAULT_TOKEN", "s."+rsecret(alBase62, 24))
	}},
	{id: "yandex-access-token", kind: "yandex-key", gen: func() sample {
		return kv("YANDEX_OAUTH", "t1."+rsecret(alB64URL, 30)+"."+rsecret(alB64URL, 86))
	}},
	{id: "yandex-api-key", kind: "yandex-key", gen: func() sample { return kv("YANDEX_API_KEY", "AQVN"+rsecret(alB64URL, 36)) }},
	{id: "yandex-aws-access-token", kind: "yandex-key", gen: func() sample { return kv("YANDEX_ACCESS_KEY", "YC"+rsecret(alB64URL, 38)) }},
	{id: "zendesk-secret-key", kind: "zendesk-key", gen: func() sample { return kv("ZENDESK_API_TOKEN", rsecret(alLD, 40)) }},
}

// pemNeedles are the body lines of a PEM block: each must be gone.
func pemNeedles(block string) []string {
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if len(l) >= 16 && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}
