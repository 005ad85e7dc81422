package agent

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/memory"
)

// ContextSource builds the context message of a session — environment
// facts, instruction files and auto memory — and discovers instruction
// files of subdirectories as tools touch them. Build it once per session.
type ContextSource struct {
	NovaHome, Workdir, Home string
	// ClaudeHome is Claude Code's directory of the user (~/.claude or
	// CLAUDE_CONFIG_DIR), where its CLAUDE.md and rules are.
	ClaudeHome string

	mu       sync.Mutex
	tracker  *memory.Tracker
	warnings []string        // not yet reported
	reported map[string]bool // every warning met, so each is told once
}

// Message re-reads instruction files and memory and returns the context
// message. It is called at the start of a session and after each compaction.
func (c *ContextSource) Message(ctx context.Context) string {
	var b strings.Builder
	b.WriteString(EnvironmentContext(ctx, c.Workdir, time.Now()))
	files, warns, err := memory.LoadInstructions(c.NovaHome, c.Workdir, c.Home, c.ClaudeHome)
	if err != nil {
		warns = append(warns, err.Error())
	}
	c.mu.Lock()
	c.tracker = memory.NewTracker(c.Workdir, c.Home, files)
	c.mu.Unlock()
	c.report(ctx, warns)
	if r := memory.Render(memory.Unconditional(files)); r != "" {
		b.WriteString("\n\n")
		b.WriteString(r)
	}
	if mem, err := memory.LoadMemory(c.NovaHome, c.Workdir); err == nil && strings.TrimSpace(mem) != "" {
		b.WriteString("\n\n<memory>\nWhat you saved with the Remember tool in earlier sessions of this project (")
		b.WriteString(memory.MemoryPath(c.NovaHome, c.Workdir))
		b.WriteString("):\n")
		b.WriteString(mem)
		b.WriteString("\n</memory>")
	}
	return b.String()
}

// Discover returns the instruction files of directories below the working
// directory that paths lead into and that were not loaded yet, rendered for
// the model, or "".
func (c *ContextSource) Discover(ctx context.Context, paths []string) string {
	c.mu.Lock()
	tr := c.tracker
	c.mu.Unlock()
	if tr == nil {
		return ""
	}
	var found []memory.File
	for _, p := range paths {
		found = append(found, tr.Touch(p)...)
	}
	c.report(ctx, tr.Warnings())
	if len(found) == 0 {
		return ""
	}
	return memory.Render(found)
}

// Warnings returns and forgets the problems met while loading files that
// were not reported through Env.
func (c *ContextSource) Warnings() []string {
	c.mu.Lock()
	tr := c.tracker
	c.mu.Unlock()
	if tr != nil {
		c.report(context.Background(), tr.Warnings()) // outside a run: kept
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	c.warnings = nil
	return w
}

// report tells each warning (a missing @import, a cycle, the depth
// limit, an unreadable file) once: as a notice of the run of ctx, or kept
// for Warnings outside a run. The context is rebuilt after every
// compaction, and the same broken import must not be told each time.
func (c *ContextSource) report(ctx context.Context, warns []string) {
	var fresh []string
	c.mu.Lock()
	for _, w := range warns {
		if c.reported[w] {
			continue
		}
		if c.reported == nil {
			c.reported = map[string]bool{}
		}
		c.reported[w] = true
		fresh = append(fresh, w)
	}
	c.mu.Unlock()
	var kept []string
	for _, w := range fresh {
		if !notice(ctx, "warning: instruction files: "+w) {
			kept = append(kept, w)
		}
	}
	c.mu.Lock()
	c.warnings = append(c.warnings, kept...)
	c.mu.Unlock()
}
