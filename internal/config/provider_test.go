package config

import (
	"errors"
	"strings"
	"testing"
)

// The provider comes from flag > environment > the resumed run > user file >
// the model's name > default, and brings its own endpoint, key and default
// model along.
func TestProviderChoice(t *testing.T) {
	cases := []struct {
		name      string
		user      string
		env       map[string]string
		flags     Flags
		prior     Provider
		want      Provider
		from      string
		model     string
		baseURL   string
		key       string
		keyOrigin string
	}{
		{name: "default", want: ProviderOpenAI, from: FromDefault, model: DefaultModel, baseURL: DefaultBaseURL},
		{name: "env", env: map[string]string{EnvProvider: "anthropic", EnvAnthropicAPIKey: "sk-ant", EnvAPIKey: "sk-oai"},
			want: ProviderAnthropic, from: FromEnv, model: DefaultAnthropicModel, baseURL: DefaultAnthropicBaseURL, key: "sk-ant", keyOrigin: FromEnv},
		{name: "env base URL of the provider only", env: map[string]string{EnvProvider: "Anthropic", EnvBaseURL: "http://127.0.0.1:1/v1", EnvAnthropicBaseURL: "http://127.0.0.1:2"},
			want: ProviderAnthropic, from: FromEnv, model: DefaultAnthropicModel, baseURL: "http://127.0.0.1:2"},
		{name: "openai ignores the anthropic variables", env: map[string]string{EnvAnthropicBaseURL: "http://127.0.0.1:2", EnvAnthropicAPIKey: "sk-ant"},
			want: ProviderOpenAI, from: FromDefault, model: DefaultModel, baseURL: DefaultBaseURL},
		{name: "flag beats env", env: map[string]string{EnvProvider: "anthropic", EnvAPIKey: "sk-oai"}, flags: Flags{Provider: "openai"},
			want: ProviderOpenAI, from: FromFlag, model: DefaultModel, baseURL: DefaultBaseURL, key: "sk-oai", keyOrigin: FromEnv},
		{name: "user file", user: "provider = \"anthropic\"\n", want: ProviderAnthropic, from: FromUser, model: DefaultAnthropicModel, baseURL: DefaultAnthropicBaseURL},
		{name: "user file base_url goes with it", user: "provider = \"anthropic\"\nbase_url = \"http://localhost:9000\"\n",
			want: ProviderAnthropic, from: FromUser, model: DefaultAnthropicModel, baseURL: "http://localhost:9000"},
		{name: "model name", env: map[string]string{EnvModel: "claude-opus-4-1"}, want: ProviderAnthropic, from: FromModelName, model: "claude-opus-4-1", baseURL: DefaultAnthropicBaseURL},
		{name: "model name does not beat a choice", user: "provider = \"openai\"\n", env: map[string]string{EnvModel: "claude-opus-4-1"},
			want: ProviderOpenAI, from: FromUser, model: "claude-opus-4-1", baseURL: DefaultBaseURL},
		{name: "the resumed run's", prior: ProviderAnthropic, user: "provider = \"openai\"\n", env: map[string]string{EnvModel: "my-proxy-model"},
			want: ProviderAnthropic, from: FromRun, model: "my-proxy-model", baseURL: DefaultAnthropicBaseURL},
		{name: "env beats the resumed run's", prior: ProviderAnthropic, env: map[string]string{EnvProvider: "openai"},
			want: ProviderOpenAI, from: FromEnv, model: DefaultModel, baseURL: DefaultBaseURL},
		{name: "flag base URL for either", env: map[string]string{EnvProvider: "anthropic", EnvAnthropicBaseURL: "http://127.0.0.1:2"}, flags: Flags{BaseURL: "http://127.0.0.1:3"},
			want: ProviderAnthropic, from: FromEnv, model: DefaultAnthropicModel, baseURL: "http://127.0.0.1:3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for k, v := range tc.env {
				f.env[k] = v
			}
			if tc.user != "" {
				f.user(t, tc.user)
			}
			c, warns, err := Load(f.ws, Sources{Flags: tc.flags, PriorProvider: tc.prior, Env: func(k string) string { return f.env[k] }})
			if err != nil || len(warns) > 0 {
				t.Fatal(err, warns)
			}
			if c.Provider != tc.want || c.Origin["provider"] != tc.from || c.Model != tc.model || c.BaseURL != tc.baseURL || c.APIKey != tc.key {
				t.Errorf("got %s (from %s), model %q, base %q, key %q", c.Provider, c.Origin["provider"], c.Model, c.BaseURL, c.APIKey)
			}
			if tc.keyOrigin != "" && c.Origin["api_key"] != tc.keyOrigin {
				t.Errorf("key origin %q", c.Origin["api_key"])
			}
		})
	}
}

// A project file cannot switch the provider, neither by name nor through a
// model name: the user's other key would go to another endpoint.
func TestProjectCannotChooseTheProvider(t *testing.T) {
	for _, text := range []string{"provider = \"anthropic\"\n", "model = \"claude-sonnet-4-5\"\n"} {
		f := newFixture(t)
		f.env[EnvAnthropicAPIKey] = "sk-ant"
		f.project(t, text)
		c, warns, err := f.load(t, Flags{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Provider != ProviderOpenAI || c.APIKey != "" {
			t.Errorf("%q: provider %s key %q", text, c.Provider, c.APIKey)
		}
		if strings.HasPrefix(text, "provider") && (len(warns) != 1 || !strings.Contains(warns[0], "cannot choose the model provider")) {
			t.Errorf("%q: warnings %v", text, warns)
		}
	}
	// the same provider as the user's is no warning
	f := newFixture(t)
	f.env[EnvProvider] = "anthropic"
	f.project(t, "provider = \"anthropic\"\n")
	if c, warns, err := f.load(t, Flags{}); err != nil || len(warns) != 0 || c.Provider != ProviderAnthropic {
		t.Errorf("%v %v %v", c.Provider, warns, err)
	}
}

func TestBadProvider(t *testing.T) {
	f := newFixture(t)
	f.env[EnvProvider] = "gemini"
	if _, _, err := f.load(t, Flags{}); err == nil || !strings.Contains(err.Error(), "AGENT_PROVIDER") || !strings.Contains(err.Error(), "openai, anthropic") {
		t.Errorf("env: %v", err)
	}
	f.env[EnvProvider] = ""
	if _, _, err := f.load(t, Flags{Provider: "claude"}); err == nil || !strings.Contains(err.Error(), "flag --provider") {
		t.Errorf("flag: %v", err)
	}
	f.user(t, "provider = 3\n")
	if _, _, err := f.load(t, Flags{}); err == nil || !strings.Contains(err.Error(), `provider = "anthropic"`) {
		t.Errorf("file: %v", err)
	}
	f.user(t, "")
	f.env[EnvAnthropicBaseURL] = "api.anthropic.com"
	if _, _, err := f.load(t, Flags{}); err == nil || !strings.Contains(err.Error(), EnvAnthropicBaseURL) {
		t.Errorf("base URL: %v", err)
	}
}

// The key check names the provider's own variable.
func TestAPIKeyCheckNamesTheProvidersKey(t *testing.T) {
	c := &Config{Provider: ProviderAnthropic, BaseURL: DefaultAnthropicBaseURL}
	err := c.CheckAPIKey()
	if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "export ANTHROPIC_API_KEY=") || !strings.Contains(err.Error(), "ANTHROPIC_BASE_URL") {
		t.Errorf("%v", err)
	}
	if err := (&Config{Provider: ProviderAnthropic, BaseURL: "http://127.0.0.1:8080"}).CheckAPIKey(); err != nil {
		t.Errorf("loopback: %v", err)
	}
}
