package redact

// SecretEnvName reports whether an environment variable's name says it
// holds a secret (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, ...): the names
// AddEnv registers, for callers that keep such variables from commands.
func SecretEnvName(name string) bool { return secretEnvName(name) }
