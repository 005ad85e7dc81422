package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nova-dev/nova/tools"
)

// shellRef is Claude Code's inline shell form, !`command`, at the start
// of a line or after a blank or "(": its output takes its place.
var shellRef = regexp.MustCompile("(^|[ \\t\\n(])!`([^`\\n]+)`")

// shellBlock is the fenced form: a ```! block, its lines one script.
var shellBlock = regexp.MustCompile("(?m)^```!\\s*\\n((?s:.*?))\\n```[ \\t]*$")

// fileRef is an @path reference: at the start or after a blank.
var fileRef = regexp.MustCompile(`(^|[ \t\n(])@([^\s@()]+)`)

// caller runs the tool calls a skill's text asks for, through the one
// pipeline: a command file is the repository's or the user's words, not
// typed now, so its !`shell` lines are Bash calls checked as the model's
// are, and its @file references Read calls.
type caller struct {
	pipeline *tools.Pipeline
	env      *tools.Env
	id       string // prefix of the calls' ids
	n        int
}

func (c *caller) call(ctx context.Context, name string, input map[string]any) tools.Outcome {
	c.n++
	raw, err := json.Marshal(input)
	if err != nil {
		return tools.Outcome{Result: tools.Errorf("%v", err)}
	}
	out := c.pipeline.Run(ctx, tools.Call{ID: fmt.Sprintf("%s_%d", c.id, c.n), Name: name, Input: raw}, c.env)
	if out.Denied {
		tools.RunScopeOf(ctx).Denied(out)
	}
	return out
}

// runShell replaces every !`command` and ```! block of text by what the
// command printed, or by why it did not run.
func (c *caller) runShell(ctx context.Context, text string) string {
	run := func(command string) string {
		out := c.call(ctx, "Bash", map[string]any{"command": command, "description": "a shell line of a skill or command"})
		if out.Denied {
			return fmt.Sprintf("[nova did not run %q: %s]", command, strings.TrimSpace(out.Result.Output))
		}
		return strings.TrimRight(out.Result.Output, "\n")
	}
	text = shellBlock.ReplaceAllStringFunc(text, func(m string) string {
		return run(shellBlock.FindStringSubmatch(m)[1])
	})
	return shellRef.ReplaceAllStringFunc(text, func(m string) string {
		sub := shellRef.FindStringSubmatch(m)
		return sub[1] + run(sub[2])
	})
}

// fileRefs returns the @path references of text that name files there
// are (relative to the workspace, or absolute, or under ~/), in order,
// each once. "@someone" in prose names no file and stays prose.
func fileRefs(text string, env *tools.Env) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range fileRef.FindAllStringSubmatch(text, -1) {
		ref := strings.TrimRight(m[2], ".,;:!?'\"`")
		if ref == "" || seen[ref] {
			continue
		}
		p := ref
		switch {
		case strings.HasPrefix(p, "~/") && env.Home != "":
			p = filepath.Join(env.Home, p[2:])
		case !filepath.IsAbs(p):
			p = filepath.Join(env.Workdir, p)
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		seen[ref] = true
		out = append(out, ref)
	}
	return out
}

// readFiles reads the @path references of text with the Read tool and
// returns what the model is given beside the prompt: each file's text, or
// why it was not read.
func (c *caller) readFiles(ctx context.Context, refs []string) []string {
	var out []string
	for _, ref := range refs {
		p := ref
		if strings.HasPrefix(p, "~/") && c.env.Home != "" {
			p = filepath.Join(c.env.Home, p[2:])
		}
		o := c.call(ctx, "Read", map[string]any{"file_path": p})
		switch {
		case o.Denied:
			out = append(out, fmt.Sprintf("[nova did not read @%s: %s]", ref, strings.TrimSpace(o.Result.Output)))
		case o.Result.IsError:
			out = append(out, fmt.Sprintf("[nova could not read @%s: %s]", ref, strings.TrimSpace(o.Result.Output)))
		default:
			out = append(out, fmt.Sprintf("<file path=%q>\n%s\n</file>", ref, strings.TrimRight(o.Result.Output, "\n")))
		}
	}
	return out
}
