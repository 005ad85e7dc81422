package permission

import "strings"

// Variables change what programs do (GIT_CONFIG_*, LD_PRELOAD, GOFLAGS,
// PAGER ...), and the list of those that do is open-ended. So the rule is
// an accept-list: a variable a command exports (export X, declare -x X,
// X=v cmd, env X=v cmd), or that the session's shell carries from an
// earlier command, must be one of safeExport's, or the command asks. A
// plain shell variable that is not exported only feeds the shell's own
// expansions, which the checker treats as unknown anyway; it asks only when
// bash itself gives the name a meaning or the environment already holds it
// (then the assignment changes what children see).

// safeExport reports whether exporting name=val changes nothing a
// person would need to approve: locale, colours, terminal size, CI flags,
// build targets, and pagers that only display.
func safeExport(name, val string, dyn bool) bool {
	switch name {
	case "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
		"CLICOLOR_FORCE", "CI", "DEBUG", "VERBOSE", "GOOS", "GOARCH", "GOARM", "GOAMD64", "CGO_ENABLED", "GO111MODULE",
		"GOTRACEBACK", "GOMAXPROCS", "RUST_BACKTRACE", "RUST_LOG", "CARGO_TERM_COLOR", "CARGO_INCREMENTAL", "NODE_ENV",
		"NODE_NO_WARNINGS", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONHASHSEED",
		"PIP_DISABLE_PIP_VERSION_CHECK", "PIP_NO_INPUT", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_AUTHOR_NAME",
		"GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
		"TERM_PROGRAM", "HUSKY":
		return true
	case "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER":
		// Only pagers that display: any other value is a program to run.
		return !dyn && (val == "" || val == "cat" || val == "less" || val == "more" || val == "less -R" || val == "less -FRX")
	}
	return strings.HasPrefix(name, "LC_")
}

// bashSpecial reports whether bash gives the variable name a meaning of
// its own (the "Shell Variables" of bash(1)): assigning it changes how the
// shell runs what follows (IFS, PATH, BASH_CMDS, PS4, PROMPT_COMMAND ...).
func bashSpecial(name string) bool {
	for _, p := range []string{"BASH", "COMP", "READLINE", "HIST", "PS", "MAIL"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "CDPATH", "CHILD_MAX", "COPROC", "DIRSTACK", "EMACS", "ENV", "EXECIGNORE", "FCEDIT", "FIGNORE", "FUNCNAME",
		"FUNCNEST", "GLOBIGNORE", "GLOBSORT", "GROUPS", "HOME", "HOSTFILE", "HOSTNAME", "HOSTTYPE", "IFS", "IGNOREEOF",
		"INPUTRC", "INSIDE_EMACS", "MACHTYPE", "MAPFILE", "OLDPWD", "OPTERR", "OSTYPE", "PATH", "PIPESTATUS",
		"POSIXLY_CORRECT", "PPID", "PROMPT_COMMAND", "PROMPT_DIRTRIM", "PWD", "SHELL", "SHELLOPTS", "SHLVL", "TIMEFORMAT",
		"TMOUT", "TMPDIR", "UID", "EUID", "LINENO", "RANDOM", "SECONDS", "SRANDOM", "EPOCHREALTIME", "EPOCHSECONDS":
		return true
	}
	return false
}

// lowerEnvVar names the lower-case variables programs read from the
// environment (proxies, npm's configuration).
func lowerEnvVar(name string) bool {
	switch name {
	case "http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy":
		return true
	}
	return strings.HasPrefix(name, "npm_config_")
}

// plainAssignAsks returns why assigning the shell variable name (not
// exported) needs a question, or "". inEnv reports whether the command's
// environment already holds name.
func plainAssignAsks(name, val string, dyn bool, inEnv func(string) bool) string {
	if safeExport(name, val, dyn) {
		return ""
	}
	switch {
	case bashSpecial(name):
		return name + " is a variable bash itself reads"
	case lowerEnvVar(name), inEnv(name):
		return name + " is in the environment, so setting it changes what every later program sees"
	}
	return ""
}
