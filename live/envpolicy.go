package live

import (
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/tools"
)

// EnvPolicy is the environment policy of a session (tools.EnvPolicy):
// nova's own credentials dropped, which are the variables it reads
// provider keys from and the keys themselves, as file and getenv
// configure them; st's envPassthrough let through; and, for a teammate,
// the variables its nova reads to reach its provider, MAX_THINKING_TOKENS
// among them so it thinks as the lead does.
func EnvPolicy(file *config.File, getenv func(string) string, st *config.Settings) tools.EnvPolicy {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return tools.EnvPolicy{
		Credentials: config.CredentialEnv(),
		Secrets:     config.Secrets(config.Providers(file, getenv)),
		Passthrough: st.EnvPassthrough,
		NovaEnv:     append(config.ProviderEnv(), "MAX_THINKING_TOKENS"),
	}
}

// envPolicyHere is the environment policy of a session started in
// workdir with the trust the store records: what nova mcp list's probe
// starts a stdio server with, so it sees what a session's would.
func envPolicyHere(novaHome, workdir string, getenv func(string) string) (tools.EnvPolicy, error) {
	ts, err := ResolveTrust(novaHome, workdir, false)
	if err != nil {
		return tools.EnvPolicy{}, err
	}
	st, _, err := config.LoadSettings(novaHome, workdir, "", ts.Trusted)
	if err != nil {
		return tools.EnvPolicy{}, err
	}
	file, err := config.LoadFile(novaHome)
	if err != nil {
		return tools.EnvPolicy{}, err
	}
	return EnvPolicy(file, getenv, st), nil
}
