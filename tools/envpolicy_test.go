package tools

import (
	"slices"
	"strings"
	"testing"
)

func TestSecretName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		secret bool
	}{
		{"ANTHROPIC_API_KEY", true},
		{"GITHUB_TOKEN", true},
		{"MY_SERVICE_SECRET", true},
		{"DB_PASSWORD", true},
		{"PGPASSWORD", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"api_key", true}, // any case
		{"Slack_Token", true},
		{"KEYCHAIN_PATH", true}, // the rule is by name: it errs on the safe side
		{"MAX_THINKING_TOKENS", true},
		{"GIT_CONFIG_KEY_0", false}, // names a git setting; GIT_CONFIG_COUNT needs it
		{"GIT_CONFIG_KEY_12", false},
		{"GIT_CONFIG_KEY_", true},
		{"GIT_CONFIG_KEY_X", true},
		{"GIT_CONFIG_VALUE_0", false},
		{"NOVA_PLAIN", false},
		{"PATH", false},
		{"HOME", false},
		{"SSH_AUTH_SOCK", false},
		{"PASSWD_FILE", false}, // only the five words
		{"", false},
	} {
		if got := SecretName(tt.name); got != tt.secret {
			t.Errorf("SecretName(%q) = %v, want %v", tt.name, got, tt.secret)
		}
	}
}

// policyEnviron is the environment of every case below: nova's own key,
// a config.json key copied into an innocent-looking variable, the
// remote's token, secret-named variables, and ordinary ones (the positive
// control: a policy that drops everything fails).
func policyEnviron() []string {
	return []string{
		"ANTHROPIC_API_KEY=sk-ant-nova",
		"ANTHROPIC_BASE_URL=http://127.0.0.1:9",
		"COPIED=sk-config-json-key",
		"GITHUB_TOKEN=ghp_x",
		"MY_SERVICE_SECRET=s3",
		"NOVA_SERVER_TOKEN=remote",
		"DB_PASSWORD=pw",
		"AWS_ACCESS_KEY_ID=id",
		"AWS_SECRET_ACCESS_KEY=sk",
		"NOVA_PLAIN=visible",
		"PATH=/usr/bin",
		"SHORT=x",
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=core.pager",
		"GIT_CONFIG_VALUE_0=cat",
	}
}

func varNames(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		out = append(out, name)
	}
	return out
}

func TestEnvPolicy(t *testing.T) {
	t.Parallel()
	nova := EnvPolicy{
		Credentials: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"},
		// "x" is a local server's placeholder key: too short to be taken
		// for a secret, so SHORT=x passes.
		Secrets: []string{"sk-config-json-key", "x"},
		NovaEnv: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "NOVA_SERVER_TOKEN"},
	}
	with := func(pass ...string) EnvPolicy { p := nova; p.Passthrough = pass; return p }
	ordinary := []string{"ANTHROPIC_BASE_URL", "NOVA_PLAIN", "PATH", "SHORT", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"}
	for _, tt := range []struct {
		name string
		got  []string
		want []string // besides ordinary
	}{
		{"zero policy: by name alone", EnvPolicy{}.Commands(policyEnviron()), []string{"COPIED"}},
		{"commands", nova.Commands(policyEnviron()), nil},
		{"a passthrough name", with("GITHUB_TOKEN").Commands(policyEnviron()), []string{"GITHUB_TOKEN"}},
		{"a passthrough glob", with("AWS_*").Commands(policyEnviron()), []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
		{"a glob brings back no credential of nova's", with("*").Commands(policyEnviron()),
			[]string{"GITHUB_TOKEN", "MY_SERVICE_SECRET", "DB_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
		{"a credential named exactly passes", with("ANTHROPIC_API_KEY", "COPIED").Commands(policyEnviron()), []string{"ANTHROPIC_API_KEY", "COPIED"}},
		{"the server token never", with("NOVA_SERVER_TOKEN", "NOVA_*").Commands(policyEnviron()), nil},
		{"a malformed glob matches nothing", with("[").Commands(policyEnviron()), nil},
		{"hooks: the user's environment without nova's credentials", nova.Hooks(policyEnviron()),
			[]string{"GITHUB_TOKEN", "MY_SERVICE_SECRET", "DB_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
		{"hooks: a credential named exactly", with("ANTHROPIC_API_KEY", "NOVA_SERVER_TOKEN").Hooks(policyEnviron()),
			[]string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "MY_SERVICE_SECRET", "DB_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
		{"a teammate: commands' and its provider's", nova.Nova(policyEnviron()), []string{"ANTHROPIC_API_KEY"}},
		{"a teammate with a passthrough", with("GITHUB_TOKEN").Nova(policyEnviron()), []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := append(slices.Clone(ordinary), tt.want...)
			got := varNames(tt.got)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("kept %v\nwant %v", got, want)
			}
		})
	}
	if got, want := nova.Dropped(policyEnviron()), []string{"ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "COPIED", "DB_PASSWORD", "GITHUB_TOKEN", "MY_SERVICE_SECRET", "NOVA_SERVER_TOKEN"}; !slices.Equal(got, want) {
		t.Errorf("Dropped = %v, want %v", got, want)
	}
	// Values pass untouched, in environ's order.
	if got := nova.Commands([]string{"NOVA_PLAIN=a=b", "PATH=/bin"}); !slices.Equal(got, []string{"NOVA_PLAIN=a=b", "PATH=/bin"}) {
		t.Errorf("Commands changed what it kept: %v", got)
	}
}

// TestBashEnvironment runs env in the shell with secrets in nova's own
// environment: none reaches the command, the ordinary variable and the
// settings' variables do (a settings variable is the user's words, even
// secret-named), and a passthrough name brings its variable back.
func TestBashEnvironment(t *testing.T) {
	for k, v := range map[string]string{"ANTHROPIC_API_KEY": "sk-ant-sentinel", "GITHUB_TOKEN": "ghp-sentinel", "MY_SERVICE_SECRET": "svc-sentinel",
		"NOVA_SERVER_TOKEN": "remote-sentinel", "DB_PASSWORD": "db-sentinel", "NOVA_PLAIN": "visible"} {
		t.Setenv(k, v)
	}
	run := func(p EnvPolicy) string {
		env := newShellEnv(t)
		env.EnvPolicy = p
		env.ExtraEnv = map[string]string{"SETTINGS_API_KEY": "from-settings"}
		return runBashTool(t, env, map[string]any{"command": "env"}).Output
	}
	out := run(EnvPolicy{Credentials: []string{"ANTHROPIC_API_KEY"}})
	for _, s := range []string{"sk-ant-sentinel", "ghp-sentinel", "svc-sentinel", "remote-sentinel", "db-sentinel"} {
		if strings.Contains(out, s) {
			t.Errorf("env printed %s:\n%s", s, out)
		}
	}
	for _, want := range []string{"NOVA_PLAIN=visible", "SETTINGS_API_KEY=from-settings"} {
		if !strings.Contains(out, want) {
			t.Errorf("env lacks %s:\n%s", want, out)
		}
	}
	if out := run(EnvPolicy{Passthrough: []string{"GITHUB_TOKEN"}}); !strings.Contains(out, "GITHUB_TOKEN=ghp-sentinel") || strings.Contains(out, "svc-sentinel") {
		t.Errorf("with GITHUB_TOKEN passed through, env printed:\n%s", out)
	}
}
