package redact

// Kind names of the vendor tokens, structured credentials and wrapped keys
// added for issue 9 (the older kinds are in redactor.go). Like those, they
// appear in placeholders and are part of the contract. The table rules in
// rules.go and rules_ctx.go name their kinds here.
const (
	KindURLPassword      = "url-password"      // https://user:PASSWORD@host, any scheme but the database ones
	KindURLToken         = "url-token"         // https://TOKEN@host: a random user name standing for a key
	KindSentryDSN        = "sentry-dsn"        // https://KEY@o1.ingest.sentry.io/1
	KindNetrcPassword    = "netrc-password"    // machine h login u password PASSWORD
	KindDockerAuth       = "docker-auth"       // "auth": base64(user:password) of ~/.docker/config.json
	KindKubernetesSecret = "kubernetes-secret" // data: / stringData: values of a kind: Secret manifest
	KindNuGetPassword    = "nuget-password"    // <add key="ClearTextPassword" value="..."/>
	KindTelegramBotToken = "telegram-bot-token"
	KindAgeSecretKey     = "age-secret-key"
	KindOktaToken        = "okta-token"
	KindVaultToken       = "vault-token"
	KindHuggingFaceToken = "huggingface-token"
	KindShopifyToken     = "shopify-token"
	KindDigitalOcean     = "digitalocean-token"
	KindDatabricksToken  = "databricks-token"
	KindMailgunKey       = "mailgun-key"
)
