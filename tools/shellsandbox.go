package tools

import (
	"strings"
)

// sandboxVars returns the variables the sandbox gives every confined
// command (its private caches, GOPROXY, TMPDIR), NAME=value; none without
// a sandbox.
func sandboxVars(env *Env) []string {
	if env.Sandbox == nil {
		return nil
	}
	return env.Sandbox.Env()
}

// sandboxScript follows restoreScript. Inside the sandbox it sets the
// sandbox's variables again, since the restored state may lack them (an
// earlier command ran outside). Outside it takes them back to what nova
// would give the command: what a sandboxed command wrote to its private
// caches must not run outside the sandbox, nor its temporary directory
// stand in for the user's.
func sandboxScript(env *Env, unsandboxed bool) string {
	vars := sandboxVars(env)
	if len(vars) == 0 {
		return ""
	}
	var b strings.Builder
	if !unsandboxed {
		b.WriteString("export")
		for _, kv := range vars {
			name, val, _ := strings.Cut(kv, "=")
			b.WriteString(" " + name + "=" + shellQuote(val))
		}
		b.WriteString("\n")
		return b.String()
	}
	base := map[string]string{}
	for _, kv := range commandEnv(env) {
		k, v, _ := strings.Cut(kv, "=")
		base[k] = v
	}
	for _, kv := range vars {
		name, val, _ := strings.Cut(kv, "=")
		b.WriteString(`if [ "${` + name + `-}" = ` + shellQuote(val) + " ]; then ")
		if old, ok := base[name]; ok {
			b.WriteString("export " + name + "=" + shellQuote(old))
		} else {
			b.WriteString("unset -v " + name)
		}
		b.WriteString("; fi\n")
	}
	return b.String()
}

// sandboxSet reports whether name=val is one of the sandbox's own
// variables, which the shell carries into every command but no earlier
// command chose.
func sandboxSet(env *Env, name, val string) bool {
	for _, kv := range sandboxVars(env) {
		if n, v, _ := strings.Cut(kv, "="); n == name && v == val {
			return true
		}
	}
	return false
}

// noteSandboxed remembers what a command that failed inside the sandbox
// printed last, and forgets it when the command works.
func (m *shellManager) noteSandboxed(command string, out fgOutcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if out.exitCode == 0 && !out.timedOut {
		if m.failed == command {
			m.failed, m.failedLine = "", ""
		}
		return
	}
	m.failed, m.failedLine = command, lastLine(out.output)
}

// sandboxFailure is the last line command printed when it just failed
// inside the sandbox; "" when it did not.
func (m *shellManager) sandboxFailure(command string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed != command {
		return ""
	}
	return m.failedLine
}

// lastLine is the last non-blank line of s, at most 300 bytes of it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n \t"), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if len(line) > 300 {
		line = strings.ToValidUTF8(line[:300], "") + "…"
	}
	return line
}
