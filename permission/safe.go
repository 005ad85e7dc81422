package permission

import (
	"strings"
)

// safeSpec describes a read-only command: how to find the paths it reads
// and which options would make it write or run something.
type safeSpec struct {
	noPaths   bool     // no argument is a path (echo, date)
	patterns  int      // leading positional words that are not paths (grep's pattern)
	valued    string   // short options whose value is the next word
	denyShort string   // short options that write or run (sed -i, sort -o)
	denyLong  []string // long options that do
	maxPos    int      // most positional words allowed; 0 means any
	noPos     bool     // no positional words at all (hostname alone)
	check     func(args []word) bool
}

// safeCommands is the built-in table of read-only commands nova runs
// without asking inside the workspace.
func safeCommands() map[string]safeSpec {
	none := safeSpec{noPaths: true}
	paths := safeSpec{}
	grep := safeSpec{patterns: 1, valued: "efABCmd"}
	return map[string]safeSpec{
		"ls": {valued: "IwT"}, "cat": paths, "head": {valued: "nc"}, "tail": {valued: "ncs"},
		"wc": paths, "grep": grep, "egrep": grep, "fgrep": grep,
		"rg":   {patterns: 1, valued: "efgtTAMCjmr", denyLong: []string{"pre", "pre-glob", "search-zip"}, denyShort: "z"},
		"find": {check: findSafe},
		"sed":  {patterns: 1, valued: "el", denyShort: "if", denyLong: []string{"in-place", "file"}, check: sedArgsSafe},
		"sort": {valued: "ktST", denyShort: "o", denyLong: []string{"output", "compress-program"}},
		"uniq": {valued: "fsw", maxPos: 1}, "cut": {valued: "bcdf"}, "tr": none, "nl": paths,
		"diff": paths, "cmp": paths, "comm": paths, "od": {valued: "AjNtw"}, "hexdump": {valued: "nsCe"},
		"xxd": {valued: "cglosn", denyShort: "r", maxPos: 1}, "strings": {valued: "nt"},
		"md5sum": paths, "sha1sum": paths, "sha256sum": paths, "sha512sum": paths, "shasum": paths, "cksum": paths, "b2sum": paths,
		"tac": paths, "rev": paths, "fold": {valued: "w"}, "fmt": {valued: "w"}, "paste": {valued: "d"}, "expand": paths, "column": {valued: "sc"},
		"stat": {valued: "cf"}, "file": {denyShort: "C"}, "du": {valued: "dB"}, "df": paths, "tree": {valued: "LPIH", denyShort: "o"},
		"realpath": paths, "readlink": paths, "basename": none, "dirname": none,
		"jq":   {patterns: 1, valued: "f", denyLong: []string{"rawfile", "slurpfile"}},
		"echo": none, "printf": {noPaths: true, denyShort: "v"}, "pwd": none, "true": none, "false": none, ":": none,
		"whoami": none, "id": none, "uname": none, "uptime": none, "nproc": none, "arch": none, "groups": none, "tty": none,
		"which": none, "type": none, "whereis": none, "test": none, "[": none, "sleep": none, "seq": none,
		"date":     {noPaths: true, denyShort: "s", denyLong: []string{"set"}},
		"hostname": {noPaths: true, noPos: true},
		"ps":       none, "free": none, "printenv": none, "env": {noPaths: true, noPos: true}, "locale": none, "getconf": none,
		"cd": none, "export": none, "declare": none, "local": none, "readonly": none, "typeset": none, "unset": none,
		"command": {noPaths: true, check: func(a []word) bool { return hasShortFlag(a, "vV") }},
		"git":     {check: gitSafe},
		"xargs":   none, // what it runs is checked as a command of its own
		"go":      {noPaths: true, check: goSafe},
	}
}

// safeReads reports whether sc only reads, and returns the words that name
// paths it reads.
func safeReads(sc *simpleCmd) ([]word, bool) {
	name := sc.name()
	if name == "" || sc.privileged || sc.riskyEnv != "" {
		return nil, false
	}
	spec, ok := safeCommands()[name]
	if !ok {
		return nil, false
	}
	args := sc.argv[1:]
	if spec.check != nil && !spec.check(args) {
		return nil, false
	}
	var pos, optPaths []word
	explicitPattern, ended := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if ended || a.dyn || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			pos = append(pos, a)
			continue
		}
		if a.val == "--" {
			ended = true
			continue
		}
		if long, ok := strings.CutPrefix(a.val, "--"); ok {
			lname, val, hasVal := strings.Cut(long, "=")
			if contains(spec.denyLong, lname) {
				return nil, false
			}
			if lname == "regexp" || lname == "file" || lname == "expression" {
				explicitPattern = true
			}
			if hasVal && (strings.HasPrefix(val, "/") || strings.HasPrefix(val, "~") || strings.HasPrefix(val, "..")) {
				optPaths = append(optPaths, word{val: val})
			}
			continue
		}
		flags := a.val[1:]
		for j := 0; j < len(flags); j++ {
			if strings.IndexByte(spec.denyShort, flags[j]) >= 0 {
				return nil, false
			}
			if strings.IndexByte(spec.valued, flags[j]) < 0 {
				continue
			}
			if flags[j] == 'e' || flags[j] == 'f' {
				explicitPattern = true
			}
			if j+1 == len(flags) && i+1 < len(args) {
				i++
				if flags[j] == 'f' {
					optPaths = append(optPaths, args[i])
				}
			}
			break
		}
	}
	if spec.noPos && len(pos) > 0 || spec.maxPos > 0 && len(pos) > spec.maxPos+spec.patterns {
		return nil, false
	}
	switch {
	case spec.noPaths:
		return nil, true
	case name == "find":
		return findRoots(args), true
	case name == "git":
		return append(gitPaths(args), pos...), true
	}
	skip := spec.patterns
	if explicitPattern {
		skip = 0
	}
	skip = min(skip, len(pos))
	return append(optPaths, pos[skip:]...), true
}

// findSafe refuses find's actions that run, delete or write.
func findSafe(args []word) bool {
	for _, a := range args {
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
	}
	return true
}

// goSafe allows the go subcommands that only report.
func goSafe(args []word) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0].val {
	case "version", "doc":
		return true
	case "env":
		return !containsVal(args, "-w") && !containsVal(args, "-u")
	}
	return false
}

// gitSafe allows the git subcommands that only read.
func gitSafe(args []word) bool {
	sub, rest, globals := gitArgs(args)
	for _, g := range globals {
		if g.val == "-c" || strings.HasPrefix(g.val, "--exec-path") || strings.HasPrefix(g.val, "--config-env") {
			return false // config overrides can run programs
		}
	}
	for _, a := range rest {
		if a.dyn || strings.HasPrefix(a.val, "--output") || a.val == "--ext-diff" || strings.HasPrefix(a.val, "--exec") {
			return false
		}
	}
	has := func(flags ...string) bool {
		for _, f := range flags {
			for _, a := range rest {
				if a.val == f || strings.HasPrefix(a.val, f+"=") {
					return true
				}
			}
		}
		return false
	}
	pos := dropOptions(rest)
	first := ""
	if len(pos) > 0 {
		first = pos[0].val
	}
	switch sub {
	case "status", "diff", "log", "show", "rev-parse", "ls-files", "ls-tree", "cat-file", "blame", "describe",
		"grep", "shortlog", "merge-base", "name-rev", "rev-list", "for-each-ref", "count-objects", "check-ignore",
		"version", "diff-tree", "diff-files", "diff-index", "show-ref", "whatchanged", "cherry", "var":
		return sub != "grep" || !has("-O", "--open-files-in-pager") // grep -O runs a pager
	case "branch", "tag":
		bad := []string{"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-u", "--set-upstream-to",
			"--unset-upstream", "--edit-description", "-f", "--force"}
		if sub == "tag" {
			bad = append(bad, "-a", "-s", "-F", "--annotate", "--sign")
		}
		if has(bad...) {
			return false
		}
		return len(pos) == 0 || has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")
	case "remote":
		return first == "" || first == "get-url" || first == "show"
	case "config":
		if first == "get" || first == "list" {
			return true
		}
		return has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l") &&
			!has("--edit", "-e", "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section")
	case "stash":
		return first == "list" || first == "show"
	case "reflog":
		return first == "" || first == "show"
	case "worktree":
		return first == "list"
	}
	return false
}

// gitPaths returns the directories git is pointed at with -C, --git-dir and
// --work-tree; the files it reads are inside the repository.
func gitPaths(args []word) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a.val == "-C" || a.val == "--git-dir" || a.val == "--work-tree") && i+1 < len(args):
			out = append(out, args[i+1])
			i++
		case strings.HasPrefix(a.val, "--git-dir="), strings.HasPrefix(a.val, "--work-tree="):
			_, v, _ := strings.Cut(a.val, "=")
			out = append(out, word{val: v})
		case !strings.HasPrefix(a.val, "-"):
			return out
		}
	}
	return out
}

// sedArgsSafe checks every sed script for commands that write files or run
// programs (w, W, e, and the w and e flags of s).
func sedArgsSafe(args []word) bool {
	var scripts []word
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.val == "-e" || a.val == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			explicit = true
		case strings.HasPrefix(a.val, "--expression="):
			scripts = append(scripts, word{val: strings.TrimPrefix(a.val, "--expression="), dyn: a.dyn})
			explicit = true
		case strings.HasPrefix(a.val, "-e") && !strings.HasPrefix(a.val, "--"):
			scripts = append(scripts, word{val: a.val[2:], dyn: a.dyn})
			explicit = true
		}
	}
	if !explicit {
		pos := dropOptions(args)
		if len(pos) == 0 {
			return false
		}
		scripts = pos[:1]
	}
	for _, s := range scripts {
		if s.dyn || !sedScriptSafe(s.val) {
			return false
		}
	}
	return true
}

// sedScriptSafe reads a sed script command by command and reports whether
// none of them writes a file or runs a program. Anything it does not
// understand is unsafe.
func sedScriptSafe(s string) bool {
	i := 0
	for i < len(s) {
		for i < len(s) && strings.IndexByte(" \t\n;{}!", s[i]) >= 0 {
			i++
		}
		i = skipSedAddress(s, i)
		if i >= len(s) {
			return i == len(s)
		}
		c := s[i]
		i++
		switch c {
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return false
			}
			i = skipDelimited(s, i)
			if i > len(s) {
				return false
			}
			i = skipDelimited(s, i-1)
			if i > len(s) {
				return false
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
			if i < len(s) && (s[i] == 'w' || s[i] == 'e' || s[i] == 'W') {
				return false
			}
		case 'a', 'i', 'c', ':', 'b', 't', 'T', 'r', 'R', '#':
			for i < len(s) && s[i] != '\n' && (c == 'a' || c == 'i' || c == 'c' || c == '#' || s[i] != ';') {
				i++
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'l', '=', 'q', 'Q', 'z', 'F':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		default:
			return false // w, W, e, v and anything unknown
		}
	}
	return true
}

// skipSedAddress skips line numbers, $, ranges and /regex/ addresses.
func skipSedAddress(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == ' ' || c == '\t' || c == '!':
			i++
		case c == '/' || c == '\\':
			if c == '\\' {
				i++
			}
			i = skipDelimited(s, i)
			if i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// skipDelimited skips a field starting at its delimiter s[i], returning
// the index just after the closing delimiter, or len(s)+1 when the field
// is not closed.
func skipDelimited(s string, i int) int {
	if i >= len(s) {
		return len(s) + 1
	}
	d := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == d {
			return j + 1
		}
	}
	return len(s) + 1
}
