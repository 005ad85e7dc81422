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

	mu       sync.Mutex
	tracker  *memory.Tracker
	warnings []string
}

// Message re-reads instruction files and memory and returns the context
// message. It is called at the start of a session and after each compaction.
func (c *ContextSource) Message(ctx context.Context) string {
	var b strings.Builder
	b.WriteString(EnvironmentContext(ctx, c.Workdir, time.Now()))
	files, warns, err := memory.LoadInstructions(c.NovaHome, c.Workdir, c.Home)
	c.mu.Lock()
	c.warnings = append(c.warnings, warns...)
	if err != nil {
		c.warnings = append(c.warnings, err.Error())
	}
	c.tracker = memory.NewTracker(c.Workdir, files)
	c.mu.Unlock()
	if r := memory.Render(files); r != "" {
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
func (c *ContextSource) Discover(paths []string) string {
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
	if len(found) == 0 {
		return ""
	}
	return memory.Render(found)
}

// Warnings returns and forgets the problems met while loading files.
func (c *ContextSource) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	c.warnings = nil
	if c.tracker != nil {
		w = append(w, c.tracker.Warnings()...)
	}
	return w
}
