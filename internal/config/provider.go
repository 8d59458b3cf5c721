package config

import (
	"fmt"
	"strings"
)

// Provider is the wire protocol the agent speaks to its model.
type Provider string

const (
	ProviderOpenAI    Provider = "openai"    // OpenAI chat completions (and compatible servers)
	ProviderAnthropic Provider = "anthropic" // the Anthropic Messages API
)

// DefaultProvider is used when nothing chooses one.
const DefaultProvider = ProviderOpenAI

// Defaults of the Anthropic provider.
const (
	DefaultAnthropicModel   = "claude-sonnet-4-5"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

// Environment variables of the provider choice.
const (
	EnvProvider         = "AGENT_PROVIDER"
	EnvAnthropicAPIKey  = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
)

// FromRun: the value is the one the resumed run started with.
const FromRun = "run"

// FromModelName: the provider follows from the model's name (claude-…).
const FromModelName = "model name"

// ProviderNames lists the providers, for messages.
func ProviderNames() []string { return []string{string(ProviderOpenAI), string(ProviderAnthropic)} }

// ParseProvider reads a provider name.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(strings.ToLower(strings.TrimSpace(s))); p {
	case ProviderOpenAI, ProviderAnthropic:
		return p, nil
	}
	return "", fmt.Errorf("unknown provider %q: use one of %s", s, strings.Join(ProviderNames(), ", "))
}

// ProviderOfModel is the provider a model name says, "" when it says none.
func ProviderOfModel(model string) Provider {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(model)), "claude") {
		return ProviderAnthropic
	}
	return ""
}

// keyEnv and baseEnv name the variables of a provider.
func (p Provider) keyEnv() string {
	if p == ProviderAnthropic {
		return EnvAnthropicAPIKey
	}
	return EnvAPIKey
}

func (p Provider) baseEnv() string {
	if p == ProviderAnthropic {
		return EnvAnthropicBaseURL
	}
	return EnvBaseURL
}

func (p Provider) defaultBaseURL() string {
	if p == ProviderAnthropic {
		return DefaultAnthropicBaseURL
	}
	return DefaultBaseURL
}

// endpointEnv is what the environment says of each provider's endpoint.
type endpointEnv struct {
	base, key map[Provider]string
}

// readEndpointEnv reads the providers' base URLs and keys.
func readEndpointEnv(env func(string) string) (endpointEnv, error) {
	e := endpointEnv{base: map[Provider]string{}, key: map[Provider]string{}}
	for _, p := range []Provider{ProviderOpenAI, ProviderAnthropic} {
		if v := env(p.baseEnv()); v != "" {
			if err := checkBaseURL(v); err != nil {
				return e, &Error{File: "environment variable " + p.baseEnv(),
					Msg: fmt.Sprintf("%q %v, e.g. %s=%s", v, err, p.baseEnv(), p.defaultBaseURL())}
			}
			e.base[p] = v
		}
		e.key[p] = env(p.keyEnv())
	}
	return e, nil
}

// resolveProvider settles the provider once every layer is applied: flag >
// environment > the resumed run's > user file > the model's name (unless the
// model came from the project file) > default. A project file cannot choose
// it: a cloned repository must not send another of your keys to another
// endpoint. Then the endpoint, key and default model follow the provider.
func (c *Config) resolveProvider(prior Provider, projectWants *Provider, ee endpointEnv) []string {
	var warns []string
	o := c.Origin["provider"]
	switch {
	case o == FromFlag || o == FromEnv:
	case prior != "":
		c.Provider, c.Origin["provider"] = prior, FromRun
	case o == FromDefault && c.Origin["model"] != FromProject && ProviderOfModel(c.Model) != "":
		c.Provider, c.Origin["provider"] = ProviderOfModel(c.Model), FromModelName
	}
	if projectWants != nil && *projectWants != c.Provider {
		warns = append(warns, fmt.Sprintf("config warning: %s: provider = %q ignored: a project file cannot choose the model provider "+
			"(that would send another API key to another endpoint); set it in %s, %s or --provider",
			c.ProjectFile, *projectWants, c.userFileHint(), EnvProvider))
	}
	p := c.Provider
	if c.Origin["base_url"] != FromFlag {
		if v := ee.base[p]; v != "" {
			c.BaseURL, c.Origin["base_url"] = v, FromEnv
		} else if c.Origin["base_url"] == FromDefault {
			c.BaseURL = p.defaultBaseURL()
		}
	}
	if v := ee.key[p]; v != "" {
		c.APIKey, c.Origin["api_key"] = v, FromEnv
	}
	if p == ProviderAnthropic && c.Origin["model"] == FromDefault {
		c.Model = DefaultAnthropicModel
	}
	return warns
}
