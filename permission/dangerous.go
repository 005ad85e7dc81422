package permission

import (
	"path/filepath"
	"strings"
)

// dangerous is layer 1: it denies catastrophic commands and asks about
// commands it cannot see through. It returns "" when it has nothing to say.
func (c *Checker) dangerous(a *analysis) (Behavior, string) {
	if a.parseErr != nil {
		return Ask, "the command cannot be parsed (" + a.parseErr.Error() + "), so it cannot be checked"
	}
	if a.forkBomb != "" {
		return Deny, "function " + a.forkBomb + " calls itself: a fork bomb"
	}
	for _, r := range a.redirs {
		if r.write && !r.target.dyn && isDiskDevice(resolvePath(r.target.val, r.cwd, c.home)) {
			return Deny, "writes to the disk device " + r.target.val
		}
	}
	var ask string
	for _, sc := range a.cmds {
		b, why := c.dangerousCmd(sc)
		if b == Deny {
			return Deny, why
		}
		if b == Ask && ask == "" && !sc.covered {
			ask = why
		}
	}
	if ask != "" {
		return Ask, ask
	}
	if len(a.opaque) > 0 {
		return Ask, a.opaque[0]
	}
	return "", ""
}

// dangerousCmd checks one simple command.
func (c *Checker) dangerousCmd(sc *simpleCmd) (Behavior, string) {
	if len(sc.argv) == 0 {
		return "", ""
	}
	text := joinWords(sc.argv)
	if sc.argv[0].dyn {
		return Ask, "the program " + sc.argv[0].val + " is only known at run time"
	}
	name := sc.name()
	args := sc.argv[1:]
	if isInterpreter(name) || name == "eval" || name == "source" || name == "." {
		for _, a := range args {
			if a.download {
				return Deny, "runs code straight from a download: " + text
			}
		}
		if sc.piped && isInterpreter(name) && readsStdin(name, args) {
			return Deny, "pipes a download into " + name + ": " + text
		}
	}
	switch {
	case name == "rm":
		return c.recursiveOn(sc, args, "deletes")
	case name == "chmod" || name == "chown" || name == "chgrp":
		return c.recursiveOn(sc, args, "changes the permissions of")
	case name == "mv":
		pos := dropOptions(args)
		for i := 0; i+1 < len(pos); i++ {
			if p := resolvePath(pos[i].val, sc.cwd, c.home); !pos[i].dyn && c.catastrophic(p) {
				return Deny, "moves " + pos[i].val + " away"
			}
		}
	case name == "find":
		if containsVal(args, "-delete") && !findFilters(args) {
			for _, p := range findRoots(args) {
				if !p.dyn && c.catastrophic(resolvePath(p.val, sc.cwd, c.home)) {
					return Deny, "deletes everything under " + p.val
				}
			}
		}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs":
		return Deny, "formats or wipes a file system: " + text
	case name == "shutdown" || name == "reboot" || name == "halt" || name == "poweroff":
		return Deny, "stops the machine: " + text
	case name == "systemctl" && (containsVal(args, "poweroff") || containsVal(args, "reboot") || containsVal(args, "halt")):
		return Deny, "stops the machine: " + text
	case name == "kill" && len(args) >= 2 && args[len(args)-1].val == "-1":
		return Deny, "kills every process: " + text
	case name == "git":
		return gitPushDanger(args, text)
	case name == "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.val, "of="); ok && isDiskDevice(resolvePath(v, sc.cwd, c.home)) {
				return Deny, "dd writes to the disk device " + v
			}
		}
		return "", ""
	}
	if !readsDevicesOnly(name, args) {
		for _, a := range args {
			v := a.val
			if _, after, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
				v = after
			}
			if !a.dyn && isDiskDevice(resolvePath(v, sc.cwd, c.home)) {
				return Deny, name + " writes to the disk device " + v
			}
		}
	}
	return "", ""
}

// recursiveOn denies a recursive rm/chmod/chown of a catastrophic target,
// and asks when a recursive target is only known at run time.
func (c *Checker) recursiveOn(sc *simpleCmd, args []word, verb string) (Behavior, string) {
	recursive := false
	for _, a := range args {
		if a.val == "--" {
			break
		}
		if a.val == "--recursive" || a.val == "--no-preserve-root" || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.ContainsAny(a.val, "rR") {
			recursive = true
		}
	}
	if !recursive {
		return "", ""
	}
	targets := dropOptions(args)
	for _, t := range targets {
		if t.dyn {
			continue
		}
		p := resolvePath(t.val, sc.cwd, c.home)
		if p != "" && c.catastrophic(p) {
			return Deny, "recursively " + verb + " " + t.val
		}
	}
	for _, t := range targets {
		if t.dyn || resolvePath(t.val, sc.cwd, c.home) == "" {
			return Ask, "recursively " + verb + " " + t.val + ", a path only known at run time"
		}
	}
	if sc.runtimeArg {
		return Ask, "recursively " + verb + " paths that " + sc.via + " supplies at run time"
	}
	return "", ""
}

// catastrophic reports whether deleting p (a cleaned absolute path, maybe a
// glob) would destroy the system, the home directory or the workspace.
func (c *Checker) catastrophic(p string) bool {
	if p == "" {
		return false
	}
	roots := c.protectedDirs()
	if strings.ContainsAny(p, "*?[") {
		if allGlob(filepath.Base(p)) && isProtected(filepath.Dir(p), roots) {
			return true
		}
		for _, r := range roots {
			if ok, _ := filepath.Match(p, r); ok {
				return true
			}
		}
		return false
	}
	return isProtected(p, roots)
}

func isProtected(p string, roots []string) bool {
	if p == "/" || filepath.Dir(p) == "/" {
		return true // every top-level directory
	}
	return contains(roots, p)
}

// protectedDirs are the directories a recursive deletion must never hit:
// the home, the workspace roots, their ancestors and the system's own.
func (c *Checker) protectedDirs() []string {
	dirs := []string{"/usr/bin", "/usr/lib", "/usr/local", "/usr/sbin", "/usr/share", "/var/lib", "/System/Library"}
	for _, r := range append(append([]string{c.home, c.novaHome}, c.roots...), c.realRoots...) {
		for d := r; d != "" && d != "/" && d != "."; d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// allGlob reports whether a path element matches every name: *, .*, ?*,
// [!x]* and the like.
func allGlob(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("*?.[]!^", r) {
			return false
		}
	}
	return strings.Contains(s, "*")
}

// isDiskDevice reports whether p is a raw disk or memory device.
func isDiskDevice(p string) bool {
	rest, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop", "mem", "kmem", "port", "nbd"} {
		if strings.HasPrefix(rest, pre) {
			return true
		}
	}
	return false
}

// readsDevicesOnly names commands that only read or list devices.
func readsDevicesOnly(name string, args []word) bool {
	switch name {
	case "ls", "stat", "file", "lsblk", "blkid", "cat", "head", "hexdump", "xxd", "od", "smartctl", "findmnt", "mount", "umount", "df", "du", "readlink", "realpath", "echo", "printf", "grep", "test", "[":
		return true
	case "fdisk", "sfdisk", "parted", "gdisk":
		return containsVal(args, "-l") || containsVal(args, "--list")
	}
	return false
}

// readsStdin reports whether an interpreter reads its program from stdin.
func readsStdin(name string, args []word) bool {
	if isShell(name) && hasShortFlag(args, "s") {
		return true
	}
	if hasShortFlag(args, "ce") {
		return false
	}
	pos := dropOptions(args)
	return len(pos) == 0 || pos[0].val == "-"
}

func containsVal(args []word, v string) bool {
	for _, a := range args {
		if a.val == v {
			return true
		}
	}
	return false
}

// findFilters reports whether a find expression narrows what it matches
// (-name, -type, -mtime ...), so -delete does not remove everything.
func findFilters(args []word) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.val, "-") {
			continue // a start path or an option's value
		}
		switch a.val {
		case "-delete", "-depth", "-d", "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-mindepth", "-maxdepth", "-print", "-true", "-P", "-L", "-H":
		default:
			return true
		}
	}
	return false
}

// findRoots returns the paths find starts from.
func findRoots(args []word) []word {
	var roots []word
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" {
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = []word{{val: "."}}
	}
	return roots
}

// gitArgs splits git's global options from the subcommand and its args.
func gitArgs(args []word) (sub string, rest []word, globals []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dyn:
			return "", nil, args[:i]
		case a.val == "-C" || a.val == "-c" || a.val == "--git-dir" || a.val == "--work-tree" || a.val == "--namespace":
			i++
		case strings.HasPrefix(a.val, "-"):
		default:
			return a.val, args[i+1:], args[:i]
		}
	}
	return "", nil, args
}

// gitPushDanger denies a force push (or deletion) of a protected branch and
// asks about a force push whose branch is not named.
func gitPushDanger(args []word, text string) (Behavior, string) {
	sub, rest, _ := gitArgs(args)
	if sub != "push" {
		return "", ""
	}
	force, del, all := false, false, false
	var pos []word
	for _, a := range rest {
		switch {
		case a.val == "--force" || a.val == "--mirror" || strings.HasPrefix(a.val, "--force-with-lease") || a.val == "--force-if-includes":
			force = true
			all = all || a.val == "--mirror"
		case a.val == "--delete":
			del = true
		case a.val == "--all" || a.val == "--branches":
			all = true
		case strings.HasPrefix(a.val, "--"):
		case strings.HasPrefix(a.val, "-") && !a.dyn:
			force = force || strings.Contains(a.val, "f")
			del = del || strings.Contains(a.val, "d")
		default:
			pos = append(pos, a)
		}
	}
	refs := pos
	if len(refs) > 0 {
		refs = refs[1:] // the remote
	}
	for _, r := range refs {
		v := r.val
		plus := strings.HasPrefix(v, "+")
		v = strings.TrimPrefix(v, "+")
		src, dst, colon := strings.Cut(v, ":")
		if !colon {
			dst = src
		}
		dst = strings.TrimPrefix(dst, "refs/heads/")
		if r.dyn || dst == "HEAD" {
			if force || plus {
				return Ask, "force-pushes a branch that may be protected: " + text
			}
			continue
		}
		if protectedBranch(dst) && (force || plus || del || colon && src == "") {
			return Deny, "force-pushes or deletes the protected branch " + dst + ": " + text
		}
	}
	if force && all {
		return Deny, "force-pushes every branch, protected ones included: " + text
	}
	if force && len(refs) == 0 {
		return Ask, "force-pushes the current branch, which may be protected: " + text
	}
	return "", ""
}

// protectedBranch names branches a force push must never rewrite.
func protectedBranch(b string) bool {
	switch b {
	case "main", "master", "trunk", "develop", "development", "production", "prod", "release", "stable", "staging":
		return true
	}
	return strings.HasPrefix(b, "release/") || strings.HasPrefix(b, "release-")
}
