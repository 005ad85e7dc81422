package permission

import (
	"path/filepath"
	"strings"
)

// wrapperSpec describes a command that runs another command: which of its
// short options take a value, which long ones do, and whether it changes
// who runs the command.
type wrapperSpec struct {
	short      string   // short options that take a value
	long       []string // long options that take a value
	privileged bool     // sudo, doas: kept in the text rules match
	positional int      // positional words before the command (timeout's duration)
	assigns    bool     // NAME=value words may come before the command
}

// wrappers returns the commands nova looks through to the command they
// run. It is a function so the table can never be changed at run time.
func wrappers() map[string]wrapperSpec {
	return map[string]wrapperSpec{
		"env":     {short: "uCS", long: []string{"unset", "chdir", "split-string"}, assigns: true},
		"sudo":    {short: "ugCDhprtTU", long: []string{"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user"}, privileged: true, assigns: true},
		"doas":    {short: "uC", privileged: true},
		"nice":    {short: "n", long: []string{"adjustment"}},
		"timeout": {short: "sk", long: []string{"signal", "kill-after"}, positional: 1},
		"nohup":   {},
		"time":    {short: "fo", long: []string{"format", "output"}},
		"command": {},
		"exec":    {short: "a"},
		"stdbuf":  {short: "ioe", long: []string{"input", "output", "error"}},
		"ionice":  {short: "cnp", long: []string{"class", "classdata", "pid"}},
		"setsid":  {},
		"builtin": {},
	}
}

// unwrap looks through wrapper commands (env X=1, sudo -u u, timeout 5 ...)
// to the command that really runs. prefix holds the words of privileged
// wrappers, which allow rules must spell out; dir follows env -C; envSet
// are the NAME=value words env and sudo set. ok is false when a wrapper's
// options could not be read.
func unwrap(argv []word, cwd string) (inner, prefix []word, privileged bool, dir string, envSet []word, ok bool) {
	dir = cwd
	table := wrappers()
	for range maxDepth * 4 {
		if len(argv) == 0 || argv[0].dyn {
			return argv, prefix, privileged, dir, envSet, true
		}
		name := filepath.Base(argv[0].val)
		spec, isWrapper := table[name]
		if !isWrapper {
			return argv, prefix, privileged, dir, envSet, true
		}
		if name == "command" && hasShortFlag(argv[1:], "vV") {
			return argv, prefix, privileged, dir, envSet, true // a query, not a run
		}
		if name == "env" && (hasShortFlag(argv[1:], "S") || hasLong(argv[1:], "split-string")) {
			return argv, prefix, privileged, dir, envSet, true // exec walks the string
		}
		rest, opts, good := skipOptions(argv[1:], spec)
		if !good {
			return argv, prefix, privileged, dir, envSet, false
		}
		if name == "env" {
			if d, found := optionValue(opts, "C", "chdir"); found {
				if d.dyn {
					dir = ""
				} else {
					dir = resolvePath(d.val, dir, "")
				}
			}
		}
		for i := 0; i < spec.positional && len(rest) > 0; i++ {
			rest = rest[1:]
		}
		if spec.assigns {
			for len(rest) > 0 && isAssignment(rest[0].val) {
				envSet = append(envSet, rest[0])
				rest = rest[1:]
			}
		}
		if len(rest) == 0 {
			return argv, prefix, privileged, dir, envSet, true // env alone prints, sudo -v
		}
		if spec.privileged {
			privileged = true
			prefix = append(prefix, argv[:len(argv)-len(rest)]...)
		}
		argv = rest
	}
	return argv, prefix, privileged, dir, envSet, false
}

// skipOptions skips the options of a wrapper, returning the words after
// them and the options seen (each with its value, when it has one).
func skipOptions(args []word, spec wrapperSpec) (rest []word, opts [][2]word, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			return args[i:], opts, true
		}
		if a.val == "--" {
			return args[i+1:], opts, true
		}
		if isNumberFlag(a.val) { // nice -10
			continue
		}
		if long, isLong := strings.CutPrefix(a.val, "--"); isLong {
			name, val, hasVal := strings.Cut(long, "=")
			switch {
			case hasVal:
				opts = append(opts, [2]word{{val: name}, {val: val}})
			case contains(spec.long, name):
				if i+1 >= len(args) {
					return nil, nil, false
				}
				opts = append(opts, [2]word{{val: name}, args[i+1]})
				i++
			default:
				opts = append(opts, [2]word{{val: name}, {}})
			}
			continue
		}
		flags := a.val[1:]
		for j := 0; j < len(flags); j++ {
			if !strings.ContainsRune(spec.short, rune(flags[j])) {
				opts = append(opts, [2]word{{val: flags[j : j+1]}, {}})
				continue
			}
			if j+1 < len(flags) {
				opts = append(opts, [2]word{{val: flags[j : j+1]}, {val: flags[j+1:]}})
				break
			}
			if i+1 >= len(args) {
				return nil, nil, false
			}
			opts = append(opts, [2]word{{val: flags[j : j+1]}, args[i+1]})
			i++
		}
	}
	return nil, opts, true
}

func optionValue(opts [][2]word, short, long string) (word, bool) {
	for _, o := range opts {
		if o[0].val == short || o[0].val == long {
			return o[1], true
		}
	}
	return word{}, false
}

func isNumberFlag(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// hasShortFlag reports whether a short option group before the first
// positional word holds one of flags.
func hasShortFlag(args []word, flags string) bool {
	for _, a := range args {
		if a.dyn || !strings.HasPrefix(a.val, "-") || a.val == "--" {
			return false
		}
		if !strings.HasPrefix(a.val, "--") && strings.ContainsAny(a.val[1:], flags) {
			return true
		}
	}
	return false
}

func hasLong(args []word, name string) bool {
	for _, a := range args {
		if a.val == "--"+name || strings.HasPrefix(a.val, "--"+name+"=") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dropOptions returns the words that are not options.
func dropOptions(args []word) []word {
	var out []word
	ended := false
	for _, a := range args {
		if !ended && a.val == "--" && !a.dyn {
			ended = true
			continue
		}
		if !ended && !a.dyn && strings.HasPrefix(a.val, "-") && a.val != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// dropWatchOptions skips watch's options, leaving the command it runs.
func dropWatchOptions(args []word) []word {
	rest, _, ok := skipOptions(args, wrapperSpec{short: "nqd", long: []string{"interval", "differences", "equexit"}})
	if !ok {
		return args
	}
	return rest
}

// trapAction returns the command string of trap 'cmd' SIGNAL..., which
// runs later in the same shell.
func trapAction(args []word) []word {
	args = dropOptions(args)
	if len(args) < 2 {
		return nil // trap -l, trap -p, or a reset
	}
	return args[:1]
}

// isShell reports whether name is a shell that runs a -c string.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "su":
		return true
	}
	return false
}

// isInterpreter reports whether name runs code it reads from stdin.
func isInterpreter(name string) bool {
	if isShell(name) {
		return true
	}
	for _, p := range []string{"python", "perl", "ruby", "node", "php", "lua", "deno", "bun"} {
		if name == p || strings.HasPrefix(name, p) && strings.Trim(name[len(p):], "0123456789.") == "" {
			return true
		}
	}
	return false
}

// isDownloader reports whether name fetches from the network.
func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-download":
		return true
	}
	return false
}

// shellCString finds the string a shell runs with -c (bash -lc "cmd"); su
// takes the same flag.
func shellCString(args []word) (word, bool) {
	seenC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dyn && !seenC:
			return word{}, false
		case a.val == "--":
			if seenC && i+1 < len(args) {
				return args[i+1], true
			}
			return word{}, false
		case a.val == "-o" || a.val == "-O" || a.val == "+O" || a.val == "--rcfile" || a.val == "--init-file":
			i++
		case a.val == "--command":
			seenC = true
		case strings.HasPrefix(a.val, "--"):
		case (strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "+")) && len(a.val) > 1:
			if strings.Contains(a.val[1:], "c") {
				seenC = true
			}
		default:
			if seenC {
				return a, true
			}
			return word{}, false
		}
	}
	return word{}, false
}

// shellScriptArg finds the script file a shell runs (sh -e build.sh
// args): the first word after its options, when there is no -c or -s.
func shellScriptArg(args []word) (word, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dyn:
			return a, true
		case a.val == "--":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return word{}, false
		case a.val == "-o" || a.val == "+o" || a.val == "-O" || a.val == "+O" || a.val == "--rcfile" || a.val == "--init-file":
			i++
		case strings.HasPrefix(a.val, "--"):
		case (strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "+")) && len(a.val) > 1:
			if strings.ContainsAny(a.val[1:], "cs") {
				return word{}, false
			}
		default:
			return a, true
		}
	}
	return word{}, false
}

// scriptCString finds the command script(1) runs with -c (script -qc
// 'cmd' log), reading its short options as util-linux does.
func scriptCString(args []word) (word, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dyn || !strings.HasPrefix(a.val, "-") || a.val == "-" || a.val == "--":
			continue
		case a.val == "--command" && i+1 < len(args):
			return args[i+1], true
		case strings.HasPrefix(a.val, "--command="):
			return word{val: strings.TrimPrefix(a.val, "--command=")}, true
		case strings.HasPrefix(a.val, "--"):
			continue
		}
		flags := a.val[1:]
		for j := 0; j < len(flags); j++ {
			switch {
			case flags[j] == 'c':
				if j+1 < len(flags) {
					return word{val: flags[j+1:]}, true
				}
				if i+1 < len(args) {
					return args[i+1], true
				}
				return word{}, false
			case strings.IndexByte("TIOBEom", flags[j]) >= 0:
				if j+1 == len(flags) {
					i++
				}
				j = len(flags)
			}
		}
	}
	return word{}, false
}

// xargsPayload returns the command xargs runs (echo when none is given).
func xargsPayload(args []word) ([]word, bool) {
	spec := wrapperSpec{short: "aEdILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-lines", "max-procs", "max-chars", "process-slot-var"}}
	rest, opts, ok := skipOptions(args, spec)
	if !ok {
		return nil, false
	}
	if len(rest) == 0 {
		return []word{{val: "echo"}}, true
	}
	out := append([]word(nil), rest...)
	if r, found := optionValue(opts, "I", "replace"); found && r.val != "" {
		for i := range out {
			if strings.Contains(out[i].val, r.val) {
				out[i].dyn = true
			}
		}
	}
	return out, true
}

// findPayloads returns the commands find runs with -exec, -execdir, -ok
// and -okdir; {} becomes a word only known at run time.
func findPayloads(args []word) [][]word {
	var out [][]word
	for i := 0; i < len(args); i++ {
		switch args[i].val {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		var payload []word
		for i++; i < len(args) && args[i].val != ";" && args[i].val != "+"; i++ {
			w := args[i]
			if strings.Contains(w.val, "{}") {
				w.dyn = true
			}
			payload = append(payload, w)
		}
		if len(payload) > 0 {
			out = append(out, payload)
		}
	}
	return out
}
