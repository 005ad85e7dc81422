package permission

// bash_suggest.go: the rules an ask suggests for a Bash command.

import (
	"path/filepath"
	"strings"
)

func verbRule(b Behavior) string {
	if b == Deny {
		return "denies"
	}
	return "asks about"
}

// bashSuggestions proposes narrow rules that would allow what was asked.
func (c *Checker) bashSuggestions(cmds []bashCmd, pending []access) []string {
	var out []string
	add := func(s string) {
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	for _, bc := range cmds {
		add(suggestBash(bc.sc))
	}
	for _, acc := range pending {
		if !acc.known() {
			continue
		}
		if acc.write {
			add("Edit(" + c.dirPattern(acc.path) + ")")
		} else {
			add("Read(" + c.dirPattern(acc.path) + ")")
		}
	}
	return out
}

// suggestBash proposes a rule for one command: a prefix rule up to its
// subcommand (Bash(npm run test:*)), or the exact command for programs
// whose every use deserves a look (rm, curl, git push).
func suggestBash(sc *simpleCmd) string {
	if len(sc.argv) == 0 || sc.privileged || sc.asks != "" || sc.via == "xargs" || sc.via == "find -exec" || sc.decl {
		return ""
	}
	var words []string
	for _, w := range sc.argv {
		if w.dyn || strings.ContainsAny(w.val, "()\n") {
			return ""
		}
		words = append(words, w.val)
	}
	name := filepath.Base(words[0])
	sub := ""
	if len(words) > 1 {
		sub = words[1]
	}
	switch name {
	case "git":
		if sub == "push" || sub == "reset" || sub == "clean" || sub == "checkout" || sub == "rebase" || strings.HasPrefix(sub, "-") {
			return exactRule(words)
		}
		return prefixRule(words, 2)
	case "rm", "mv", "cp", "dd", "chmod", "chown", "curl", "wget", "ssh", "scp", "rsync", "kill", "pkill", "eval",
		"sh", "bash", "zsh", "env", "xargs", "find", "sed", "awk", "perl", "tee", "ln", "truncate", "shred", "touch", "mkdir", "sudo":
		return exactRule(words)
	case "npm", "pnpm", "yarn", "bun":
		if sub == "run" || sub == "run-script" || sub == "exec" || sub == "x" || sub == "dlx" {
			return prefixRule(words, 3)
		}
		return prefixRule(words, 2)
	case "go", "cargo", "docker", "kubectl", "make", "pip", "pip3", "uv", "poetry", "gh", "dotnet", "mvn", "gradle",
		"terraform", "helm", "npx", "deno", "bundle", "rake", "mix", "swift", "python", "python3", "node", "ruby", "pytest", "just":
		return prefixRule(words, 2)
	}
	return prefixRule(words, 1)
}

func exactRule(words []string) string { return "Bash(" + strings.Join(words, " ") + ")" }

// prefixRule is Bash(first n words:*), stopping early at an option or a
// path, or the exact command when nothing follows.
func prefixRule(words []string, n int) string {
	k := 1
	for k < n && k < len(words) && !strings.HasPrefix(words[k], "-") && !strings.ContainsAny(words[k], "/=*") {
		k++
	}
	if k == len(words) {
		return exactRule(words)
	}
	return "Bash(" + strings.Join(words[:k], " ") + ":*)"
}
