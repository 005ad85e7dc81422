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
	if branch := GitBranch(ctx, workdir); branch != "" {
		fmt.Fprintf(&b, "Git branch: %s\n", branch)
		var status string
		if why := permission.GitConfigHazard(workdir); why != "" {
			status = "(not shown: " + why + ")"
		} else {
			status = git(ctx, workdir, "status", "--short")
		}
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
