package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LaterPath is a path whose content a program other than the command that
// writes it runs later, as the user and outside any sandbox: nova's and
// Claude Code's settings and skills, editors' tasks, git's and direnv's
// hooks, CI workflows. A sandboxed command can never write one, and the
// file tools ask before they do (docs/sandbox.md, "Protected paths").
type LaterPath struct {
	// Rel is the path relative to the directory it protects, with
	// slashes; a directory counts with all it holds, and a missing one
	// cannot be created.
	Rel string
	// Why says who runs what is there, and when.
	Why string
}

// RunsLater is the one list of the paths, relative to each writable
// directory, that run later. git's own files (.git/hooks, .git/config and
// what core.hooksPath and include.path name) are not in it: where they are
// depends on the repository, so the sandbox works them out from git's
// configuration (sandbox/git.go), and the checker from gitMetadataWrite.
func RunsLater() []LaterPath {
	const shell = "a shell runs it at start-up wherever this directory serves as the home directory (a container, a devcontainer, HOME=$PWD)"
	return []LaterPath{
		{".nova", "nova reads its project settings (hooks, permission rules, MCP servers), skills, commands and agents from it when it starts here"},
		{".claude", "nova and Claude Code read settings (hooks, permission rules), skills, commands, agents and rules from it when they start here"},
		{".mcp.json", "nova and Claude Code start the MCP servers it names, as programs, when they start here"},
		{".vscode", "VS Code runs its tasks (runOn: folderOpen) and applies its settings, which name programs, when the folder is opened"},
		{".idea", "JetBrains IDEs apply its settings and run configurations, which name programs, when the project is opened"},
		{".cursor", "Cursor starts the MCP servers of its mcp.json and applies its rules when the folder is opened"},
		{".devcontainer", "VS Code and the devcontainer CLI build the container it describes and run its commands (postCreateCommand, initializeCommand on the host)"},
		{".envrc", "direnv runs it in your shell when you enter the directory"},
		{".husky", "husky keeps git hooks in it, which git runs on commit and push"},
		{".pre-commit-config.yaml", "pre-commit runs the hooks it names on every commit"},
		{".github/workflows", "GitHub Actions runs its workflows, with the repository's secrets, once they are pushed"},
		{".bashrc", shell},
		{".bash_profile", shell},
		{".bash_login", shell},
		{".profile", shell},
		{".zshrc", shell},
		{".zshenv", shell},
		{".zprofile", shell},
		{".zlogin", shell},
		{".config/fish", shell},
	}
}

// laterHit is a write that lands in a LaterPath.
type laterHit struct {
	acc   access
	entry LaterPath
	// at is where the entry starts: the root, or the directory below it
	// the entry was found in, joined with Rel.
	at string
}

// laterWrite returns the entry of RunsLater that the absolute path p lands
// in, at any depth below a workspace root (a nested project's .vscode is
// opened by an editor too), and where that entry starts.
func (c *Checker) laterWrite(p string) (LaterPath, string, bool) {
	if p == "" {
		return LaterPath{}, "", false
	}
	for i := range c.roots {
		for _, root := range []string{c.roots[i], c.realRoots[i]} {
			if root == "" || !within(p, root) || p == root {
				continue
			}
			rel := strings.Split(filepath.ToSlash(strings.TrimPrefix(p, strings.TrimSuffix(root, "/")+"/")), "/")
			for depth := range rel {
				for _, e := range RunsLater() {
					parts := strings.Split(e.Rel, "/")
					n := min(len(parts), len(rel)-depth)
					// A write of .github itself (mkdir, mv x .github) can
					// bring a workflows directory with it.
					if slices.Equal(rel[depth:depth+n], parts[:n]) {
						at := filepath.Join(append([]string{root}, rel[:depth+n]...)...)
						return e, at, true
					}
				}
			}
		}
	}
	return LaterPath{}, "", false
}

// laterHits lists the writes of accs that land in a LaterPath, as spelled
// or where their links lead. A write of a whole tree (rm -r, cp -r into
// it) lands in each entry the tree holds now.
func (c *Checker) laterHits(accs []access) []laterHit {
	var out []laterHit
	for _, a := range accs {
		if !a.write || !a.known() {
			continue
		}
		found := false
		for _, p := range []string{a.path, a.real} {
			if e, at, ok := c.laterWrite(p); ok && !found {
				out, found = append(out, laterHit{acc: a, entry: e, at: at}), true
			}
		}
		if found || !a.tree {
			continue
		}
		for _, e := range RunsLater() {
			at := filepath.Join(a.real, filepath.FromSlash(e.Rel))
			if _, err := os.Lstat(at); err == nil && c.inside(access{path: at, real: at}) {
				out = append(out, laterHit{acc: a, entry: e, at: at})
				break
			}
		}
	}
	return out
}

// namesLater reports whether the allow rule r names the entry h lands in
// specifically: its pattern spells the entry's name (.vscode, .mcp.json,
// .github/workflows) without wildcards, as Edit(.vscode/**) or
// Edit(./.mcp.json) do. A rule that reaches the entry only through a
// wildcard (Edit, Edit(**), Write(*), Edit(src/**), Edit(.*/**)) was not
// written with a file that runs later in mind, and does not cover it.
func namesLater(r Rule, h laterHit) bool {
	if r.Spec == "" {
		return false
	}
	parts := strings.Split(h.entry.Rel, "/")
	comps := strings.Split(strings.Trim(filepath.ToSlash(r.Spec), "/"), "/")
	for i := 0; i+len(parts) <= len(comps); i++ {
		if slices.Equal(comps[i:i+len(parts)], parts) {
			return true
		}
	}
	return false
}

// laterAsk is the question for a call that writes where something runs
// later: only bypassPermissions (or a hook's allow, which stands in for
// it) and an allow rule that names the path specifically let it through;
// acceptEdits, sandbox.autoAllow and broad allow rules do not. allowed
// says whether an allow rule covers the write at all. ok is false when
// nothing the call writes needs the question.
func (c *Checker) laterAsk(req Request, what string, hits []laterHit, allowed func(Rule, laterHit) bool) (d Decision, ok bool) {
	if len(hits) == 0 || c.modeOf(req) == ModeBypass {
		return Decision{}, false
	}
	for _, h := range hits {
		if _, named := firstRule(c.allow, func(r Rule) bool { return namesLater(r, h) && allowed(r, h) }); named {
			continue
		}
		return Decision{Behavior: Ask, Layer: LayerPath,
			Reason:      fmt.Sprintf("%s %s, and this file runs commands outside the sandbox: %s", what, h.acc.path, h.entry.Why),
			Suggestions: []string{"Edit(" + c.dirPattern(h.acc.path) + ")"}}, true
	}
	return Decision{}, false
}
