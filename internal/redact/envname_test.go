package redact

import (
	"strings"
	"testing"
)

// commonPlainEnv are environment variables of Linux and macOS sessions, CI
// systems and language toolchains that hold no credential, with values of
// their usual shape: none may be classified a credential, and none
// redacted as NAME=value.
var commonPlainEnv = []string{
	// Linux and macOS sessions, shells, terminals
	"PWD=/home/dev/src/agent", "OLDPWD=/home/dev", "HOME=/home/dev", "USER=dev", "LOGNAME=dev",
	"SHELL=/bin/bash", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=en_US.UTF-8", "LC_ALL=C.UTF-8",
	"TERM=xterm-256color", "COLORTERM=truecolor", "TERM_PROGRAM=iTerm.app", "TERM_SESSION_ID=w0t0p0:6A3C2F51-4B8E-4C7A-9D55-1E2F3A4B5C6D",
	"ITERM_SESSION_ID=w0t0p0:6A3C2F51-4B8E-4C7A-9D55-1E2F3A4B5C6D", "SECURITYSESSIONID=186a7", "TMPDIR=/var/folders/xy/T/",
	"XPC_SERVICE_NAME=0", "XPC_FLAGS=0x0", "__CF_USER_TEXT_ENCODING=0x1F5:0x0:0x0", "COMMAND_MODE=unix2003",
	"__CFBundleIdentifier=com.apple.Terminal", "SHLVL=1", "HISTSIZE=1000", "HISTCONTROL=ignoredups",
	"EDITOR=vim", "VISUAL=vim", "PAGER=less", "LESS=-R", "MAIL=/var/mail/dev", "HOSTNAME=devbox",
	"DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0", "XAUTHORITY=/run/user/1000/.mutter-Xwaylandauth.QK7Z1", "ICEAUTHORITY=/run/user/1000/ICEauthority",
	"XDG_SESSION_ID=2", "XDG_SESSION_TYPE=wayland", "XDG_SESSION_CLASS=user", "XDG_SESSION_DESKTOP=ubuntu",
	"XDG_RUNTIME_DIR=/run/user/1000", "XDG_CONFIG_HOME=/home/dev/.config", "XDG_DATA_DIRS=/usr/share",
	"XDG_CURRENT_DESKTOP=ubuntu:GNOME", "DESKTOP_SESSION=ubuntu", "GDMSESSION=ubuntu",
	"SESSION_MANAGER=local/devbox:@/tmp/.ICE-unix/2110,unix/devbox:/tmp/.ICE-unix/2110",
	"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "GNOME_DESKTOP_SESSION_ID=this-is-deprecated",
	"GNOME_TERMINAL_SCREEN=/org/gnome/Terminal/screen/9a1e2b3c", "VTE_VERSION=7006", "GPG_TTY=/dev/pts/3",
	"KEYBOARD_LAYOUT=us", "KEYTIMEOUT=1", "LS_COLORS=rs=0:di=01;34:ln=01;36", "SSH_CONNECTION=10.0.0.2 51122 10.0.0.5 22",
	"SSH_CLIENT=10.0.0.2 51122 22", "SSH_TTY=/dev/pts/0", "TMUX=/tmp/tmux-1000/default,3187,0", "TMUX_PANE=%1",
	"MANPATH=/usr/share/man", "INFOPATH=/usr/share/info", "LD_LIBRARY_PATH=/usr/local/lib", "PLAIN_SETTING=plain-1",
	"HOMEBREW_PREFIX=/opt/homebrew", "HOMEBREW_CELLAR=/opt/homebrew/Cellar", "HOMEBREW_REPOSITORY=/opt/homebrew",
	"SESSIONNAME=Console", "EUID=1000", "UID=1000", "MOTD_SHOWN=pam", "WSL_DISTRO_NAME=Ubuntu",
	// CI systems
	"CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=/home/runner/work/app/app", "GITHUB_REPOSITORY=acme/app",
	"GITHUB_SHA=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "GITHUB_REF=refs/heads/main", "GITHUB_REF_NAME=main",
	"GITHUB_HEAD_REF=feature/login", "GITHUB_BASE_REF=main", "GITHUB_RUN_ID=7351234567", "GITHUB_RUN_NUMBER=42",
	"GITHUB_ACTOR=octocat", "GITHUB_EVENT_NAME=push", "GITHUB_EVENT_PATH=/home/runner/work/_temp/_github_workflow/event.json",
	"GITHUB_SERVER_URL=https://github.com", "GITHUB_API_URL=https://api.github.com", "GITHUB_GRAPHQL_URL=https://api.github.com/graphql",
	"GITHUB_OUTPUT=/home/runner/work/_temp/_runner_file_commands/set_output_1", "GITHUB_ENV=/home/runner/work/_temp/_runner_file_commands/set_env_1",
	"GITHUB_STEP_SUMMARY=/home/runner/work/_temp/_runner_file_commands/step_summary_1", "GITHUB_JOB=build", "GITHUB_ACTION=__run",
	"GITHUB_ACTION_REPOSITORY=", "GITHUB_RETENTION_DAYS=90", "GITHUB_TRIGGERING_ACTOR=octocat", "GITHUB_WORKFLOW=CI",
	"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP=/home/runner/work/_temp", "RUNNER_TOOL_CACHE=/opt/hostedtoolcache",
	"RUNNER_NAME=GitHub Actions 12", "RUNNER_WORKSPACE=/home/runner/work/app", "ImageOS=ubuntu22", "ImageVersion=20240101.1.0",
	"GITLAB_CI=true", "CI_COMMIT_SHA=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "CI_COMMIT_SHORT_SHA=4f1c2a9d", "CI_COMMIT_REF_NAME=main",
	"CI_COMMIT_BRANCH=main", "CI_COMMIT_AUTHOR=Dev Person <dev@example.com>", "CI_COMMIT_MESSAGE=fix login", "CI_COMMIT_TITLE=fix login",
	"CI_PROJECT_DIR=/builds/acme/app", "CI_PROJECT_PATH=acme/app", "CI_PROJECT_URL=https://gitlab.com/acme/app", "CI_PROJECT_ID=123456",
	"CI_PIPELINE_ID=987654321", "CI_PIPELINE_SOURCE=push", "CI_JOB_ID=5551234", "CI_JOB_NAME=test", "CI_JOB_STAGE=test",
	"CI_JOB_URL=https://gitlab.com/acme/app/-/jobs/5551234", "CI_SERVER_URL=https://gitlab.com", "CI_SERVER_HOST=gitlab.com",
	"CI_API_V4_URL=https://gitlab.com/api/v4", "CI_REGISTRY=registry.gitlab.com", "CI_REGISTRY_IMAGE=registry.gitlab.com/acme/app",
	"CI_REGISTRY_USER=gitlab-ci-token", "CI_RUNNER_ID=12270857", "CI_RUNNER_TAGS=[\"docker\"]", "CI_DEFAULT_BRANCH=main",
	"CI_SERVER_TLS_CA_FILE=/builds/acme/app.tmp/CI_SERVER_TLS_CA_FILE", "GITLAB_USER_LOGIN=dev", "GITLAB_USER_EMAIL=dev@example.com",
	"CIRCLECI=true", "CIRCLE_BRANCH=main", "CIRCLE_SHA1=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "CIRCLE_BUILD_NUM=1234",
	"CIRCLE_BUILD_URL=https://circleci.com/gh/acme/app/1234", "CIRCLE_PROJECT_REPONAME=app", "CIRCLE_PROJECT_USERNAME=acme",
	"CIRCLE_WORKING_DIRECTORY=~/project", "CIRCLE_USERNAME=dev", "CIRCLE_NODE_INDEX=0", "CIRCLE_NODE_TOTAL=1", "CIRCLE_JOB=build",
	"CIRCLE_WORKFLOW_ID=6a3c2f51-4b8e-4c7a-9d55-1e2f3a4b5c6d", "CIRCLE_PR_NUMBER=17", "CIRCLE_REPOSITORY_URL=git@github.com:acme/app.git",
	"TRAVIS=true", "TRAVIS_BRANCH=main", "TRAVIS_BUILD_DIR=/home/travis/build/acme/app", "TRAVIS_COMMIT=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
	"TRAVIS_SECURE_ENV_VARS=true", "TRAVIS_PULL_REQUEST=false", "JENKINS_URL=https://ci.acme.io/", "BUILD_URL=https://ci.acme.io/job/app/42/",
	"JOB_NAME=app", "BUILD_NUMBER=42", "BUILD_ID=42", "WORKSPACE=/var/jenkins_home/workspace/app", "NODE_NAME=built-in",
	"EXECUTOR_NUMBER=0", "GIT_COMMIT=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "GIT_BRANCH=origin/main", "GIT_URL=https://github.com/acme/app.git",
	"BUILDKITE=true", "BUILDKITE_BRANCH=main", "BUILDKITE_COMMIT=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "BUILDKITE_BUILD_URL=https://buildkite.com/acme/app/builds/42",
	"BUILDKITE_AGENT_NAME=agent-1", "BUILDKITE_PIPELINE_SLUG=app", "TF_BUILD=True", "BUILD_SOURCEVERSION=4f1c2a9d8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
	"BUILD_REPOSITORY_URI=https://dev.azure.com/acme/_git/app", "SYSTEM_TEAMFOUNDATIONCOLLECTIONURI=https://dev.azure.com/acme/",
	"AGENT_OS=Linux", "AGENT_NAME=Hosted Agent", "BITBUCKET_COMMIT=4f1c2a9d8b7e", "BITBUCKET_BRANCH=main", "BITBUCKET_CLONE_DIR=/opt/atlassian/pipelines/agent/build",
	"BITBUCKET_GIT_HTTP_ORIGIN=http://bitbucket.org/acme/app", "DRONE=true", "DRONE_COMMIT_AUTHOR=dev", "DRONE_COMMIT_AUTHOR_EMAIL=dev@example.com",
	"GIT_AUTHOR_NAME=Dev Person", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_NAME=Dev Person",
	// language toolchains
	"GOPATH=/home/dev/go", "GOROOT=/usr/local/go", "GOBIN=/home/dev/go/bin", "GOFLAGS=-mod=mod", "GOPROXY=https://proxy.golang.org,direct",
	"GOPRIVATE=github.com/acme/*", "GONOSUMDB=github.com/acme/*", "GOCACHE=/home/dev/.cache/go-build", "GOMODCACHE=/home/dev/go/pkg/mod",
	"GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOAMD64=v3",
	"CARGO_HOME=/home/dev/.cargo", "RUSTUP_HOME=/home/dev/.rustup", "RUSTFLAGS=-C target-cpu=native", "RUST_BACKTRACE=1", "CARGO_TARGET_DIR=target",
	"CARGO_INCREMENTAL=0", "CARGO_REGISTRIES_CRATES_IO_PROTOCOL=sparse", "RUST_LOG=info",
	"JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64", "JAVA_OPTS=-Xmx2g", "JAVA_TOOL_OPTIONS=-Dfile.encoding=UTF-8", "MAVEN_OPTS=-Xmx1g",
	"M2_HOME=/usr/share/maven", "GRADLE_HOME=/opt/gradle", "GRADLE_USER_HOME=/home/dev/.gradle", "GRADLE_OPTS=-Dorg.gradle.daemon=false",
	"ANDROID_HOME=/opt/android-sdk", "ANDROID_SDK_ROOT=/opt/android-sdk", "KOTLIN_HOME=/opt/kotlin",
	"NODE_OPTIONS=--max-old-space-size=4096", "NODE_ENV=production", "NODE_PATH=/usr/lib/node_modules", "NVM_DIR=/home/dev/.nvm",
	"NVM_BIN=/home/dev/.nvm/versions/node/v20.11.0/bin", "NPM_CONFIG_PREFIX=/home/dev/.npm-global", "npm_config_cache=/home/dev/.npm",
	"npm_config_registry=https://registry.npmjs.org/", "npm_lifecycle_event=test", "npm_package_name=app", "YARN_CACHE_FOLDER=/tmp/yarn",
	"PNPM_HOME=/home/dev/.local/share/pnpm", "COREPACK_HOME=/home/dev/.cache/node/corepack", "BUN_INSTALL=/home/dev/.bun", "DENO_DIR=/home/dev/.cache/deno",
	"PYTHONPATH=/home/dev/src/app", "PYTHONHOME=/usr", "PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8",
	"VIRTUAL_ENV=/home/dev/src/app/.venv", "CONDA_PREFIX=/opt/conda", "CONDA_DEFAULT_ENV=base", "PIP_INDEX_URL=https://pypi.org/simple",
	"PIP_NO_CACHE_DIR=1", "PIPENV_VENV_IN_PROJECT=1", "POETRY_HOME=/opt/poetry", "PYENV_ROOT=/home/dev/.pyenv", "UV_CACHE_DIR=/tmp/uv",
	"TOKENIZERS_PARALLELISM=false", "HF_HOME=/home/dev/.cache/huggingface", "CUDA_VISIBLE_DEVICES=0",
	"GEM_HOME=/home/dev/.gem", "GEM_PATH=/home/dev/.gem", "BUNDLE_PATH=vendor/bundle", "RBENV_ROOT=/home/dev/.rbenv", "RAILS_ENV=test",
	"RUBYOPT=-W0", "COMPOSER_HOME=/home/dev/.composer", "PHP_INI_SCAN_DIR=/etc/php/conf.d", "DOTNET_ROOT=/usr/share/dotnet",
	"DOTNET_CLI_TELEMETRY_OPTOUT=1", "NUGET_PACKAGES=/home/dev/.nuget/packages", "SWIFT_PATH=/usr/bin/swift", "ERL_AFLAGS=-kernel shell_history enabled",
	"MIX_HOME=/home/dev/.mix", "CC=gcc", "CXX=g++", "CFLAGS=-O2", "LDFLAGS=-L/usr/local/lib", "PKG_CONFIG_PATH=/usr/local/lib/pkgconfig",
	"CMAKE_BUILD_TYPE=Release", "MAKEFLAGS=-j2", "DOCKER_HOST=unix:///var/run/docker.sock", "DOCKER_BUILDKIT=1", "COMPOSE_PROJECT_NAME=app",
	"KUBECONFIG=/home/dev/.kube/config", "AWS_REGION=eu-west-1", "AWS_DEFAULT_REGION=eu-west-1", "AWS_PROFILE=dev",
	"CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000", "MAX_THINKING_TOKENS=8000", "OPENAI_BASE_URL=https://api.openai.com/v1", "OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318",
	"DATABASE_URL=postgres://localhost:5432/app_dev", "REDIS_URL=redis://localhost:6379/0", "SENTRY_ENVIRONMENT=staging",
}

// credentialEnvNames are names that mark a credential (issue 18).
var credentialEnvNames = []string{
	"REDIS_PASSWORD", "NPM_TOKEN", "MYAPP_PAT", "GH_PAT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_VALUE_0", "DB_PW", "LDAP_BIND_PW", "VAULT_BEARER", "KUBE_BEARER", "MY_API_KEY", "X_API_KEY", "APIKEY",
	"SMTPPASS", "SMTP_PASS", "PGPASS", "PGPASSWORD", "SSHPASS", "MYSQL_PWD", "GCP_CREDS", "GOOGLE_APPLICATION_CREDENTIALS",
	"REQ_SIGNATURE", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "GH_TOKEN", "CI_JOB_TOKEN",
	"CI_JOB_JWT", "CI_JOB_JWT_V2", "CI_REGISTRY_PASSWORD", "CI_DEPLOY_PASSWORD", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"CIRCLE_OIDC_TOKEN", "BUILDKITE_AGENT_ACCESS_TOKEN", "SYSTEM_ACCESSTOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "STRIPE_SECRET",
	"SESSION", "APP_SESSION", "SESSION_COOKIE", "COOKIE", "SESSION_SECRET", "JWT_SECRET", "SECRET_KEY_BASE", "PRIVATE_KEY",
	"SSH_PRIVATE_KEY", "OAUTH_CLIENT_SECRET", "AUTH", "BASIC_AUTH", "AUTHORIZATION", "npm_config__auth", "npm_config__authToken",
	"NODE_AUTH_TOKEN", "TWINE_PASSWORD", "DOCKER_AUTH_CONFIG", "REGISTRY_CREDENTIALS", "SIGNING_KEY", "PASSWORD_SALT", "SLACK_WEBHOOK_URL",
	"DISCORD_WEBHOOK", "ENCRYPTION_KEY", "MASTER_KEY", "SSHKEY", "PASSPHRASE", "GPG_PASSPHRASE", "KEY", "DB_PASSWD", "ADMIN_PASS",
}

func TestEnvNamesCommonPlain(t *testing.T) {
	r := New(Config{Key: make([]byte, KeySize)})
	r.AddEnv(commonPlainEnv) // registers nothing: no name marks a secret
	for _, kv := range commonPlainEnv {
		name, value, _ := strings.Cut(kv, "=")
		if c := ClassifyEnvName(name); c == EnvSecret || c == EnvAgent {
			t.Errorf("%s classified %s", name, c)
		}
		if SecretEnv(name, value) {
			t.Errorf("SecretEnv(%s, %q) = true", name, value)
		}
		for _, form := range []string{kv, "export " + kv, name + "=\"" + value + "\"", "$ env\n" + kv + "\n"} {
			if got := r.Redact(form); got != form {
				t.Errorf("%q redacted: %q", form, got)
			}
		}
	}
}

func TestEnvNamesCredentials(t *testing.T) {
	for _, name := range credentialEnvNames {
		if !SecretEnvName(name) {
			t.Errorf("%s (%s) is not a credential name", name, ClassifyEnvName(name))
		}
	}
	for name, want := range map[string]EnvClass{
		"SSH_AUTH_SOCK": EnvAgent, "GPG_AGENT_INFO": EnvAgent, "PWD": EnvPlain, "OLDPWD": EnvPlain,
		"KEYBOARD_LAYOUT": EnvPlain, "PLAIN_SETTING": EnvPlain, "DATABASE_URL": EnvURL, "SENTRY_DSN": EnvURL,
		"MONGODB_URI": EnvURL, "PASSWORD_FILE": EnvPlain, "TOKEN_TTL": EnvPlain, "GIT_AUTHOR_NAME": EnvPlain,
		"REDIS_PASSWORD": EnvSecret, "SLACK_WEBHOOK_URL": EnvSecret, "PASSENGER_APP_ENV": EnvPlain,
		"TOKENIZERS_PARALLELISM": EnvPlain, "TERM_SESSION_ID": EnvPlain, "MONKEY_PATCH": EnvPlain,
	} {
		if got := ClassifyEnvName(name); got != want {
			t.Errorf("ClassifyEnvName(%s) = %s, want %s", name, got, want)
		}
	}
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"DATABASE_URL", "postgres://app:amber-12345-delta@db:5432/app", true},
		{"DATABASE_URL", "postgres://localhost:5432/app", false},
		{"REDIS_URL", "redis://:birch-55555-ember@cache:6379/0", true},
		{"APP_DSN", "app:cedar-44444-fjord@tcp(db:3306)/app", true},
		{"GITHUB_SERVER_URL", "https://github.com", false},
		{"SSH_AUTH_SOCK", "/tmp/ssh-XXXX/agent.123", true},
	} {
		if got := SecretEnv(tc.name, tc.value); got != tc.want {
			t.Errorf("SecretEnv(%s, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

// TestAddEnvSameNames: the values of every credential-named variable are
// known secrets, low entropy or not (REDIS_PASSWORD=amber-12345-delta), and
// a URL's password is one; an agent socket's path is not redacted.
func TestAddEnvSameNames(t *testing.T) {
	r := New(Config{Key: make([]byte, KeySize)})
	words := []string{"amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron"}
	var env, vals []string
	for i, name := range credentialEnvNames {
		v := words[i%8] + "-" + strings.Repeat(string(rune('1'+i%9)), 2) + "345-" + words[(i+3)%8]
		env = append(env, name+"="+v)
		vals = append(vals, v)
	}
	env = append(env, "DATABASE_URL=postgres://app:grove-77345-heron@db/app", "SSH_AUTH_SOCK=/tmp/ssh-abcdef/agent.4242")
	r.AddEnv(env)
	for i, v := range vals {
		text := "$ env\n" + credentialEnvNames[i] + "=" + v + "\nused " + v + " here\n"
		if got := r.Redact(text); strings.Contains(got, v) {
			t.Errorf("%s's value %q not redacted: %q", credentialEnvNames[i], v, got)
		}
	}
	if got := r.Redact("pw grove-77345-heron"); strings.Contains(got, "grove-77345-heron") {
		t.Errorf("DATABASE_URL's password not redacted: %q", got)
	}
	if got := r.Redact("sock /tmp/ssh-abcdef/agent.4242"); got != "sock /tmp/ssh-abcdef/agent.4242" {
		t.Errorf("the agent socket's path was redacted: %q", got)
	}
}
