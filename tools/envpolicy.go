package tools

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// serverTokenEnv is the variable nova serve and /remote read their token
// from. Whoever holds it drives nova's sessions from a browser, so it
// reaches no program nova starts, whatever the passthrough says.
const serverTokenEnv = "NOVA_SERVER_TOKEN"

// minSecretLen is the shortest value EnvPolicy.Secrets matches. A shorter
// provider key is a placeholder (a local server's "x"), not a secret, and
// dropping every variable that holds "x" or "1" would drop ordinary ones.
const minSecretLen = 8

// EnvPolicy decides which of nova's environment variables reach the
// programs nova starts for the model and for configuration it reads:
// Bash (sandboxed or not, which covers !cmd and skills' ! lines), MCP
// stdio servers, teammates and, with a looser rule, hooks. The zero
// policy drops the variables whose names say they hold a secret
// (SecretName) and NOVA_SERVER_TOKEN.
type EnvPolicy struct {
	// Credentials name the variables nova read its own credentials from
	// (ANTHROPIC_API_KEY, OPENAI_API_KEY). They are dropped whatever
	// their names, and a passthrough glob does not bring them back; only
	// Passthrough naming one exactly does.
	Credentials []string
	// Secrets are credential values nova holds (the keys of the
	// configured providers, a base URL that carries a password). A
	// variable holding one is one of nova's credentials, whatever its name.
	Secrets []string
	// Passthrough are names or path.Match globs ("AWS_*") of variables
	// the user lets through although their names look secret (the
	// settings' envPassthrough).
	Passthrough []string
	// NovaEnv name the variables a nova that nova starts (a teammate)
	// reads to reach its provider: it is given them on top of what a
	// command gets.
	NovaEnv []string
}

// SecretName reports whether a variable's name says it holds a secret:
// it contains KEY, SECRET, TOKEN, PASSWORD or CREDENTIAL, in any case
// (Codex's default rule, widened). git's GIT_CONFIG_KEY_<n> is not one:
// its value names a configuration key, and dropping it would leave
// GIT_CONFIG_COUNT pointing at a key that is not there, which makes every
// git command fail.
func SecretName(name string) bool {
	if gitConfigKey(name) {
		return false
	}
	upper := strings.ToUpper(name)
	for _, word := range [...]string{"KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"} {
		if strings.Contains(upper, word) {
			return true
		}
	}
	return false
}

// gitConfigKey reports whether name is GIT_CONFIG_KEY_<digits>.
func gitConfigKey(name string) bool {
	n, ok := strings.CutPrefix(name, "GIT_CONFIG_KEY_")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// Commands returns the variables of environ (NAME=value, as os.Environ
// gives them) that a command nova starts inherits, in environ's order:
// NOVA_SERVER_TOKEN never; nova's own credentials only when Passthrough
// names them exactly; secret-named variables only when a Passthrough
// pattern matches them; every other variable.
func (p EnvPolicy) Commands(environ []string) []string {
	return p.keep(environ, p.passes)
}

// Hooks returns the variables of environ that a command hook inherits:
// hooks are the user's own programs and keep the user's environment,
// without NOVA_SERVER_TOKEN and nova's own credentials (unless
// Passthrough names one exactly).
func (p EnvPolicy) Hooks(environ []string) []string {
	return p.keep(environ, func(name, value string) bool {
		return name != serverTokenEnv && (!p.credential(name, value) || p.listed(name))
	})
}

// Nova returns the variables of environ that a nova started by nova (a
// teammate) inherits: what a command gets, and the NovaEnv variables it
// needs to reach its provider. NOVA_SERVER_TOKEN is never among them.
func (p EnvPolicy) Nova(environ []string) []string {
	return p.keep(environ, func(name, value string) bool {
		return p.passes(name, value) || (name != serverTokenEnv && slices.Contains(p.NovaEnv, name))
	})
}

// Dropped returns the names of the variables of environ that Commands
// leaves out, sorted: what nova doctor shows.
func (p EnvPolicy) Dropped(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !p.passes(name, value) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// passes is the rule of Commands for one variable.
func (p EnvPolicy) passes(name, value string) bool {
	switch {
	case name == serverTokenEnv:
		return false
	case p.credential(name, value):
		return p.listed(name)
	case SecretName(name):
		return p.matched(name)
	}
	return true
}

// credential reports whether name=value is one of nova's own credentials.
func (p EnvPolicy) credential(name, value string) bool {
	return slices.Contains(p.Credentials, name) || len(value) >= minSecretLen && slices.Contains(p.Secrets, value)
}

// listed reports whether Passthrough names name exactly.
func (p EnvPolicy) listed(name string) bool { return slices.Contains(p.Passthrough, name) }

// matched reports whether a Passthrough name or glob matches name. A
// malformed glob matches nothing (the settings refuse one when loaded).
func (p EnvPolicy) matched(name string) bool {
	for _, pat := range p.Passthrough {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// keep returns the entries of environ whose variable pass says to keep.
func (p EnvPolicy) keep(environ []string, pass func(name, value string) bool) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if pass(name, value) {
			out = append(out, kv)
		}
	}
	return out
}
