package tools

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

type stateMap struct {
	mu sync.Mutex
	m  map[string]any
}

// State returns the session state a tool keeps under key, creating it with
// create on first use. Tools use it for what outlives one call (the shells
// of Bash, the todo list).
func (e *Env) State(key string, create func() any) any {
	e.extra.mu.Lock()
	defer e.extra.mu.Unlock()
	if e.extra.m == nil {
		e.extra.m = map[string]any{}
	}
	if v, ok := e.extra.m[key]; ok {
		return v
	}
	v := create()
	e.extra.m[key] = v
	return v
}

// NewEnv returns an Env for a session working in workdir.
func NewEnv(workdir string) *Env {
	return &Env{Workdir: workdir, Files: NewFileTracker()}
}

// SessionChecker is the session's permission checker as its Env uses it:
// which paths search tools leave out, and the mode plan mode switches.
type SessionChecker interface {
	ReadDenied(p string) bool
	ModeSwitch
}

// NewSessionEnv returns the Env of a session whose calls c checks. The
// search tools' read denial and the mode come from c itself, so a
// session cannot be set up with a checker that denies a read and an Env
// whose Grep reads it anyway.
func NewSessionEnv(workdir string, c SessionChecker) *Env {
	e := NewEnv(workdir)
	e.DeniedRead, e.Modes = c.ReadDenied, c
	return e
}

// Child returns an Env for a subagent of e's session working in workdir:
// the same home, directories, sandbox, spill and scratch directories,
// environment, denials and person to ask, with state of its own (no
// shells, todos or reads of e's). Close it when the subagent is done.
func (e *Env) Child(workdir string) *Env {
	c := NewEnv(workdir)
	c.Home, c.AddDirs, c.SessionID, c.SpillDir, c.ScratchDir = e.Home, e.AddDirs, e.SessionID, e.SpillDir, e.ScratchDir
	c.DeniedRead, c.ExtraEnv, c.EnvPolicy, c.Sandbox, c.SandboxUnavailable = e.DeniedRead, e.ExtraEnv, e.EnvPolicy, e.Sandbox, e.SandboxUnavailable
	c.SandboxAt, c.SandboxExcluded = e.SandboxAt, e.SandboxExcluded
	c.Notify, c.Ask = e.Notify, e.Ask
	shareShellRecords(c, e)
	return c
}

// Abs resolves p against the working directory and cleans it; "~/" is the
// user's home (Home), or a directory named ~ when Home is empty.
func (e *Env) Abs(p string) string {
	if e.Home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = filepath.Join(e.Home, strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Workdir, p)
	}
	return filepath.Clean(p)
}

// Close releases session state that holds resources (background shells),
// closing every state value that implements io.Closer.
func (e *Env) Close() error {
	e.extra.mu.Lock()
	vals := make([]any, 0, len(e.extra.m))
	for _, v := range e.extra.m {
		vals = append(vals, v)
	}
	e.extra.m = nil
	e.extra.mu.Unlock()
	var first error
	for _, v := range vals {
		if c, ok := v.(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
