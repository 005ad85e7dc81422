package permission

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// maxGitConfig bounds how much of a git config file nova reads: git reads
// larger ones, so a file past this is treated as hazardous.
const maxGitConfig = 1 << 20

// gitHazard returns why a git command nova would run without asking could
// make git run a program, or "": the repository's own configuration (which
// a cloned or downloaded repository, or an earlier command, may have set)
// names a pager, an external diff, a textconv or filter driver, a signing
// program or an include. core.fsmonitor and hooks are switched off for the
// commands nova runs unasked (Decision.Auto), so they do not count here.
func (c *Checker) gitHazard(sc *simpleCmd, inv *invocation) string {
	var gitDir string
	if inv.gitDir != nil {
		if inv.gitDir.dyn || sc.cwd == "" && !filepath.IsAbs(inv.gitDir.val) {
			return "git is pointed at a git directory only known at run time"
		}
		gitDir = physicalPath(joinPath(inv.gitDir.val, sc.cwd, c.home))
	} else {
		repo := word{val: "."}
		if inv.repo != nil {
			repo = *inv.repo
		}
		if repo.dyn || sc.cwd == "" && !filepath.IsAbs(repo.val) {
			return "git runs in a repository only known at run time"
		}
		gitDir = findGitDir(physicalPath(joinPath(repo.val, sc.cwd, c.home)))
	}
	if gitDir == "" {
		return ""
	}
	return gitDirHazard(gitDir)
}

// GitConfigHazard returns why git commands in the repository dir is in
// would run a program its own configuration names (a pager, an external
// diff, a filter, an include), or "" when they would not. nova's own git
// calls check it before running anything that reads files.
func GitConfigHazard(dir string) string {
	if gitDir := findGitDir(physicalPath(dir)); gitDir != "" {
		return gitDirHazard(gitDir)
	}
	return ""
}

// gitDirHazard checks every config file git reads for gitDir.
func gitDirHazard(gitDir string) string {
	for _, f := range gitConfigFiles(gitDir) {
		if why := gitConfigHazard(f); why != "" {
			return why
		}
	}
	return ""
}

// findGitDir finds the git directory git would use from dir, as git's
// discovery does: dir/.git (a directory, or a file naming one), or dir
// itself when it is a bare repository, then each parent in turn.
func findGitDir(dir string) string {
	for d := dir; d != ""; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Stat(dot); err == nil {
			if fi.IsDir() {
				return dot
			}
			if target := readGitFile(dot); target != "" {
				return target
			}
		}
		if isGitDir(d) {
			return d
		}
		if d == "/" {
			break
		}
	}
	return ""
}

// readGitFile reads a .git file ("gitdir: PATH") and returns the git
// directory it names, absolute.
func readGitFile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 4096 {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	return filepath.Clean(target)
}

// gitConfigFiles lists the configuration git reads for gitDir besides the
// user's own: config, config.worktree, the common directory's, and the
// submodules' (git status looks into them).
func gitConfigFiles(gitDir string) []string {
	files := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		files = append(files, filepath.Join(common, "config"))
	}
	for _, pat := range []string{"modules/*/config", "modules/*/modules/*/config"} {
		if m, err := filepath.Glob(filepath.Join(gitDir, pat)); err == nil {
			files = append(files, m...)
		}
	}
	return files
}

// gitConfigHazard scans one git config file for keys that make a reading
// git command run a program. It reads the file's sections and keys
// without interpreting values: any such key asks.
func gitConfigHazard(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if fi.Size() > maxGitConfig {
		return path + " is too large to check"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return path + " cannot be read to check it"
	}
	section, sub := "", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), maxGitConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return path + " has a section header nova cannot read"
			}
			head := strings.TrimSpace(line[1:end])
			line = strings.TrimSpace(line[end+1:])
			section, sub = head, ""
			if name, rest, ok := strings.Cut(head, " "); ok {
				section, sub = name, strings.Trim(strings.TrimSpace(rest), `"`)
			} else if name, rest, ok := strings.Cut(head, "."); ok {
				section, sub = name, rest
			}
			section = strings.ToLower(section)
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if why := gitKeyHazard(section, sub, key); why != "" {
			return path + " sets " + why + ", which makes git run a program"
		}
	}
	return ""
}

// gitKeyHazard returns the name of a key that runs a program, or "".
func gitKeyHazard(section, sub, key string) string {
	name := section + "." + key
	if sub != "" {
		name = section + "." + sub + "." + key
	}
	switch section {
	case "core":
		switch key {
		case "pager", "editor", "sshcommand", "askpass", "alternaterefscommand", "gitproxy", "worktree":
			return name
		}
	case "diff":
		if sub == "" && key == "external" || sub != "" && (key == "textconv" || key == "command") {
			return name
		}
	case "filter", "pager", "include", "includeif", "merge":
		if section != "merge" || key == "driver" {
			return name
		}
	case "gpg":
		if key == "program" {
			return name
		}
	case "log":
		if key == "showsignature" {
			return name
		}
	}
	return ""
}

// plainGitKey reports whether setting the git configuration key to val
// only changes data git uses (a name, a colour, a merge style). It is an
// accept-list: every other key may name a program git runs
// (core.sshCommand, diff.*.textconv, filter.*.clean, credential.helper,
// alias.x=!cmd) or a path git runs or reads configuration from
// (core.hooksPath, include.path, init.templateDir), so a command that sets
// one asks whatever rule allows the command.
func plainGitKey(key, val string) bool {
	key = strings.ToLower(key)
	section, rest, _ := strings.Cut(key, ".")
	sub, name := "", rest
	if j := strings.LastIndex(rest, "."); j >= 0 {
		sub, name = rest[:j], rest[j+1:]
	}
	if name == "" {
		return false
	}
	switch section {
	case "user", "color", "advice", "i18n", "column", "status", "pull", "fetch", "rebase", "pretty", "tag", "versionsort",
		"gc", "pack", "rerere", "grep", "am", "checkout", "clone", "index", "feature", "fsck", "transfer", "branch", "author", "committer":
		return true
	case "push":
		return name != "receivepack"
	case "init":
		return name == "defaultbranch"
	case "protocol":
		return sub == "" && name == "version"
	case "submodule":
		return sub == "" && (name == "recurse" || name == "fetchjobs")
	case "merge", "diff":
		return sub == "" && name != "external" && name != "tool" && name != "guitool"
	case "log":
		return name != "showsignature"
	case "format":
		return name != "signaturefile" && name != "outputdirectory"
	case "blame":
		return name != "ignorerevsfile"
	case "commit":
		return name != "template"
	case "interactive":
		return name == "singlekey"
	case "core":
		switch name {
		case "autocrlf", "safecrlf", "eol", "filemode", "ignorecase", "quotepath", "abbrev", "compression", "loosecompression",
			"bigfilethreshold", "whitespace", "symlinks", "precomposeunicode", "protecthfs", "protectntfs", "commentchar",
			"commentstring", "untrackedcache", "preloadindex", "splitindex", "logallrefupdates", "checkstat", "trustctime",
			"fscache", "longpaths", "multipackindex", "packedgitlimit", "packedgitwindowsize", "deltabasecachesize",
			"sparsecheckout", "sparsecheckoutcone", "fsyncmethod", "fsync", "warnambiguousrefs", "filesreflocktimeout":
			return true
		}
	case "alias":
		// An alias that runs git with options may set configuration
		// (alias.l = -c core.pager=cmd log); one starting with ! is a
		// shell command.
		if strings.HasPrefix(strings.TrimSpace(val), "!") {
			return false
		}
		for _, f := range strings.Fields(val) {
			if strings.HasPrefix(f, "-") {
				return false
			}
		}
		return true
	}
	return false
}

// gitPathKey reports whether the value of key is a path git later runs
// programs from or reads configuration, hooks or a message from: setting
// it is a write of what it names.
func gitPathKey(key string) bool {
	key = strings.ToLower(key)
	switch key {
	case "core.hookspath", "include.path", "init.templatedir", "core.worktree", "core.excludesfile", "core.attributesfile",
		"commit.template", "blame.ignorerevsfile", "mailmap.file", "format.signaturefile", "core.fsmonitor":
		return true
	}
	return strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path")
}
