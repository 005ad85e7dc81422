package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/nova-dev/nova/gitwork"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
)

// SystemPrompt is nova's system prompt. It holds nothing that depends on
// the project or the day, so it is byte-identical across requests and
// sessions and stays in the provider's prompt cache.
func SystemPrompt() string {
	return `You are nova, a coding assistant working in the user's terminal. You help with software engineering tasks: reading and changing code, running commands, debugging, explaining.

How you work:
- Use the tools to look before you change: read the relevant files, search the code, run the tests. Do not guess file contents.
- Make the smallest change that solves the task, in the style of the surrounding code. Do not add unrelated refactors.
- Edit existing files with Edit (exact text replacement) rather than rewriting them; Write creates new files or replaces a file you have read.
- Run commands with Bash. Prefer the project's own scripts (make, npm test, go test). Check that your change works before saying it does.
- Independent read-only calls (Read, Glob, Grep, LS) can be made together in one response; they run in parallel.
- Some tool calls need the user's permission. If a call is denied, do not retry it the same way: adapt, or explain what you need and why.
- Never run destructive commands (deleting outside the task, force-pushing, rewriting history) unless the user asked for exactly that.
- When you are done, answer briefly: what you changed and how you verified it. Use Markdown; refer to code as path:line.`
}

// EnvironmentContext describes the working environment: directory, OS,
// date, git branch and status. It goes into the first user message of a
// session, not the system prompt, so the prompt prefix stays cacheable.
// It opens with session.ContextTag: a history shown to a person knows the
// context message by it and leaves it out.
func EnvironmentContext(ctx context.Context, workdir string, now time.Time) string {
	var b strings.Builder
	b.WriteString(session.ContextTag + "\n")
	fmt.Fprintf(&b, "Working directory: %s\n", workdir)
	fmt.Fprintf(&b, "Platform: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "Date: %s\n", now.Format("2006-01-02"))
	branch, status, ok := gitBranchStatus(ctx, workdir)
	if ok {
		fmt.Fprintf(&b, "Git branch: %s\n", branch)
		if status == "" {
			status = "(clean)"
		}
		lines := strings.Split(status, "\n")
		if len(lines) > 30 {
			lines = append(lines[:30], fmt.Sprintf("... and %d more", len(lines)-30))
		}
		fmt.Fprintf(&b, "Git status:\n%s\n", strings.Join(lines, "\n"))
	} else {
		b.WriteString("Git repository: no\n")
	}
	b.WriteString("</environment>")
	return b.String()
}

// GitBranch is the branch of the repository dir is in, or "" outside one.
func GitBranch(ctx context.Context, dir string) string {
	if b := git(ctx, dir, "rev-parse", "--abbrev-ref", "HEAD"); b != "" {
		return b
	}
	return git(ctx, dir, "symbolic-ref", "--short", "-q", "HEAD") // a repository without commits yet
}

// gitBranchStatus is the branch and short status of the repository dir is
// in, ok false outside one. It costs one git process (git status --branch
// carries the branch on its first line), where asking for the branch and
// then the status cost two or three at every session's start. A repository
// whose config names programs that status would run (a filter driver, see
// permission.GitConfigHazard) has its branch read alone and its status left
// out, with the reason.
func gitBranchStatus(ctx context.Context, dir string) (branch, status string, ok bool) {
	if why := permission.GitConfigHazard(dir); why != "" {
		if branch = GitBranch(ctx, dir); branch == "" {
			return "", "", false
		}
		return branch, "(not shown: " + why + ")", true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := gitwork.Run(ctx, dir, "status", "--short", "--branch")
	if err != nil {
		return "", "", false
	}
	head, rest, _ := strings.Cut(out, "\n")
	branch, ok = shortStatusBranch(head)
	if !ok {
		// Not the header git has always written: ask the old way.
		if branch = GitBranch(ctx, dir); branch == "" {
			return "", "", false
		}
		return branch, out, true
	}
	return branch, rest, true
}

// shortStatusBranch reads the branch from the first line of git status
// --short --branch: "## main", "## main...origin/main [ahead 1]", "## No
// commits yet on main" ("## Initial commit on main" before git 2.28),
// "## HEAD (no branch)" when detached (reported as "HEAD", as git rev-parse
// --abbrev-ref HEAD does).
func shortStatusBranch(head string) (string, bool) {
	h, ok := strings.CutPrefix(head, "## ")
	if !ok || h == "" {
		return "", false
	}
	for _, p := range []string{"No commits yet on ", "Initial commit on "} {
		if b, ok := strings.CutPrefix(h, p); ok && b != "" {
			return b, true
		}
	}
	if h == "HEAD (no branch)" {
		return "HEAD", true
	}
	// Branch names have no spaces and no "..": the name ends at the first
	// of either.
	h, _, _ = strings.Cut(h, " ")
	h, _, _ = strings.Cut(h, "...")
	return h, h != ""
}

// git runs one of nova's own quick git commands in dir (gitwork.Run) and
// returns its output, or "" when it fails.
func git(ctx context.Context, dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := gitwork.Run(ctx, dir, args...)
	if err != nil {
		return ""
	}
	return out
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
