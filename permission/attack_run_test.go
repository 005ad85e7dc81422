package permission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/sandbox"
	"github.com/nova-dev/nova/tools"
)

// runOptions change how a case runs, for the tests of the harness itself.
type runOptions struct {
	// checker, when set, replaces the case's checker (allow-all, deny-all).
	checker tools.Checker
	// noSandbox runs sandboxed cases without the sandbox.
	noSandbox bool
	// noDeniedRead leaves the search tools' deny filter off.
	noDeniedRead bool
	// postGit runs the user's git commands even when no call ran.
	postGit bool
}

// outcome is what the sentinels saw after one case ran.
type outcome struct {
	escapes []string // every sentinel that fired
	missing []string // what a control did not show
	clutter []string // empty paths the sandbox left in the workspace
	results []agent.ToolResult
	notes   []string // harness remarks that are not escapes
	skip    string   // why the case could not run here
	err     error    // the harness failed
	dur     time.Duration
}

func (o outcome) escaped() bool { return len(o.escapes) > 0 }

// scripted is an llm.Client that plays a case: turn i emits the calls of
// turn i, and the turn after the last one only says it is done.
type scripted struct {
	mu    sync.Mutex
	turns [][]llm.ToolCall
	n     int
}

// Stream implements llm.Client.
func (s *scripted) Stream(ctx context.Context, _ llm.Request, emit func(llm.StreamEvent)) error {
	s.mu.Lock()
	i := s.n
	s.n++
	s.mu.Unlock()
	if i < len(s.turns) {
		for j := range s.turns[i] {
			emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &s.turns[i][j]})
		}
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopToolUse})
		return nil
	}
	emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: "done"})
	emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
	return nil
}

// runCase runs c for real in a fresh world and reads the sentinels.
func (h *harness) runCase(c *attackCase, opt runOptions) (out outcome) {
	start := time.Now()
	defer func() { out.dur = time.Since(start) }()
	cfg := c.config()
	useSandbox := cfg.Sandbox && !opt.noSandbox
	if useSandbox && !h.probe.Works {
		out.skip = "the sandbox cannot run here: " + h.probe.Reason
		return out
	}
	for _, prog := range c.programs() {
		if _, err := exec.LookPath(prog); err != nil {
			out.skip = prog + " is not installed"
			return out
		}
	}
	if c.setup().Preload && h.preload == "" {
		out.skip = "no gcc to build the LD_PRELOAD library"
		return out
	}
	w, err := h.newWorld(c)
	if err != nil {
		out.err = fmt.Errorf("set up: %w", err)
		return out
	}
	defer os.RemoveAll(w.root)
	defer w.close()

	mode, ok := permission.ParseMode(cfg.Mode)
	if cfg.Mode == "" {
		mode, ok = permission.ModeDefault, true
	}
	if !ok {
		out.err = fmt.Errorf("unknown mode %q", cfg.Mode)
		return out
	}
	var addDirs []string
	for _, d := range cfg.AddDirs {
		addDirs = append(addDirs, filepath.Join(w.root, d))
	}
	var sb *sandbox.Sandbox
	if useSandbox {
		sc := sandbox.Config{Workspace: w.ws, AddDirs: append([]string{w.scratch}, addDirs...), Home: w.home, Network: cfg.Network, Probed: h.probe}
		if len(cfg.AllowedDomains) > 0 {
			// The test binary is the bridge (TestMain), as nova's own
			// executable is.
			sc.Hosts, sc.Bridge = sandbox.HostsAllowed(cfg.AllowedDomains), h.bridge
		}
		sb, err = sandbox.New(sc)
		if err != nil {
			out.err = fmt.Errorf("sandbox: %w", err)
			return out
		}
	}
	checker, err := permission.NewChecker(permission.Config{
		Workspace: w.ws, Home: w.home, NovaHome: filepath.Join(w.home, ".nova"), Mode: mode,
		Rules:   permission.Rules{Allow: cfg.Allow, Ask: cfg.Ask, Deny: cfg.Deny},
		AddDirs: addDirs, SandboxAutoAllow: sb != nil && cfg.AutoAllow, AllowedDomains: cfg.AllowedDomains,
	})
	if err != nil {
		out.err = fmt.Errorf("checker: %w", err)
		return out
	}
	var chk tools.Checker = checker
	if opt.checker != nil {
		chk = opt.checker
	}
	reg := tools.NewRegistry()
	for _, t := range tools.Builtin() {
		if err := reg.Register(t); err != nil {
			out.err = err
			return out
		}
	}
	env := tools.NewEnv(w.ws)
	env.Home = w.home
	env.AddDirs = addDirs
	env.SpillDir, env.ScratchDir = w.spill, w.scratch
	env.Modes = checker
	if !opt.noDeniedRead {
		env.DeniedRead = checker.ReadDenied
	}
	env.ExtraEnv = map[string]string{
		"HOME": w.home, "PATH": h.path, "NOVA_HOME": filepath.Join(w.home, ".nova"),
		"XDG_CONFIG_HOME": filepath.Join(w.home, ".config"), "TMPDIR": w.scratch, "LANG": "C",
		"GOCACHE": h.gocache, "GOPATH": filepath.Join(w.scratch, "gopath"), "GOTOOLCHAIN": "local", "GOPROXY": "off",
		"GIT_CONFIG_NOSYSTEM": "1", "GOTELEMETRY": "off",
		"NPM_CONFIG_CACHE": filepath.Join(w.scratch, "npm"), "NPM_CONFIG_UPDATE_NOTIFIER": "false", "NPM_CONFIG_FUND": "false", "NPM_CONFIG_AUDIT": "false",
	}
	if sb != nil {
		env.Sandbox = sb
	}

	var turns [][]llm.ToolCall
	for i, turn := range c.turnList() {
		var calls []llm.ToolCall
		for j, tc := range turn {
			in, err := callInput(tc, w.vars)
			if err != nil {
				out.err = fmt.Errorf("turn %d call %d: %w", i+1, j+1, err)
				return out
			}
			calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("call_%d_%d", i+1, j+1), Name: tc.Tool, Input: in})
		}
		turns = append(turns, calls)
	}

	before := snapshot(w.root, "ws", "scratch", "spill")
	protBefore := protectedSnapshot(w.ws)
	laterBefore := laterPresent(w.ws)
	var raceDone <-chan struct{}
	stop := make(chan struct{})
	if r := c.setup().Race; r != nil {
		raceDone = racer(filepath.Join(w.root, r.Dir), expand(r.Target, w.vars), stop)
	}

	a := agent.New(agent.Config{Client: &scripted{turns: turns}, Pipeline: &tools.Pipeline{Registry: reg, Checker: chk},
		Env: env, MaxTurns: len(turns) + 1})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	for ev := range a.Run(ctx, llm.UserText("run the case")) {
		switch {
		case ev.Type == agent.EventToolResult && ev.Result != nil:
			out.results = append(out.results, *ev.Result)
		case ev.Type == agent.EventError:
			out.notes = append(out.notes, "agent error: "+ev.Text)
		}
	}
	cancel()
	close(stop)
	if raceDone != nil {
		<-raceDone
	}
	if err := env.Close(); err != nil {
		out.notes = append(out.notes, "closing the shell: "+err.Error())
	}
	if sb != nil {
		// As the session's end does (live.Runtime.Close): the sandbox
		// keeps its placeholders from one command to the next.
		sb.Close()
	}

	// The sentinels.
	e := c.expect()
	for _, d := range diffSnapshots(before, snapshot(w.root, "ws", "scratch", "spill"), "") {
		out.escapes = append(out.escapes, "outside the workspace "+d)
	}
	for _, d := range diffSnapshots(protBefore, protectedSnapshot(w.ws), "ws/") {
		// A control that writes a protected path where that is allowed
		// (bypassPermissions, no sandbox, a rule naming it) names it.
		if e.Control && controlNames(e, w, d[1:]) {
			continue
		}
		out.escapes = append(out.escapes, "protected path "+d)
	}
	if useSandbox {
		for p := range laterPresent(w.ws) {
			if !laterBefore[p] && !(e.Control && controlNames(e, w, "ws/"+p)) && emptyTree(filepath.Join(w.ws, p)) {
				out.clutter = append(out.clutter, "ws/"+p)
			}
		}
	}
	secretFiles := []string{}
	for _, p := range []string{"home/.ssh/id_rsa", "home/.aws/credentials", "home/.netrc", "home/.pypirc", "ws/.env"} {
		if b, err := os.ReadFile(filepath.Join(w.root, p)); err == nil {
			secretFiles = append(secretFiles, string(b))
		}
	}
	forms := secretForms(h.token, secretFiles...)
	for _, r := range out.results {
		if f := leaks(r.Output, forms); f != "" {
			out.escapes = append(out.escapes, fmt.Sprintf("the secret (%s) is in the result of %s %s", shortForm(f, h.token), r.Name, r.ID))
		}
	}
	for _, p := range e.Kept {
		if _, err := os.Lstat(filepath.Join(w.root, expand(p, w.vars))); err != nil {
			out.escapes = append(out.escapes, p+" was removed")
		}
	}
	tcpN, unixN, err := w.connections()
	if err != nil {
		out.err = err
		return out
	}
	if tcpN > 0 {
		out.escapes = append(out.escapes, fmt.Sprintf("%d connection(s) to the TCP listener on 127.0.0.1:%s", tcpN, w.vars["port"]))
	}
	if unixN > 0 {
		out.escapes = append(out.escapes, fmt.Sprintf("%d connection(s) to the Unix socket %s", unixN, w.vars["sock"]))
	}

	// The user goes on working in the repository, outside any sandbox.
	ran := false
	for _, r := range out.results {
		ran = ran || !r.Denied
	}
	// When every call was refused the world is the setup's, which the
	// corpus checks is quiet (TestAttackCorpusIsReal), so the user's git
	// commands could reveal nothing.
	if !e.NoPostGit && !c.setup().NoGit && (ran || opt.postGit) {
		mid := snapshot(w.root, "ws", "scratch", "spill")
		for _, args := range [][]string{{"status"}, {"diff"}, {"commit", "-q", "--allow-empty", "-m", "probe"}} {
			if err := h.git(w, args...); err != nil {
				out.notes = append(out.notes, err.Error())
			}
		}
		for _, d := range diffSnapshots(mid, snapshot(w.root, "ws", "scratch", "spill"), "") {
			out.escapes = append(out.escapes, "after the user's git status/diff/commit, outside the workspace "+d)
		}
	}

	if e.Control {
		out.missing = checkControl(e, w, out.results)
	}
	return out
}

// controlNames reports whether the control's created or contains names
// the path rel (relative to the root) or a directory holding it.
func controlNames(e expectSpec, w *world, rel string) bool {
	var named []string
	named = append(named, e.Created...)
	for p := range e.Contains {
		named = append(named, p)
	}
	for _, p := range named {
		p = expand(p, w.vars)
		if rel == p || strings.HasPrefix(p, rel+"/") || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// emptyTree reports whether path holds no file: an empty directory, or
// directories of nothing.
func emptyTree(path string) bool {
	empty := true
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			empty = false
			return filepath.SkipAll
		}
		return nil
	})
	return empty
}

// checkControl lists what a positive control failed to show.
func checkControl(e expectSpec, w *world, results []agent.ToolResult) []string {
	var missing []string
	for _, want := range e.Output {
		want = expand(want, w.vars)
		found := false
		for _, r := range results {
			if !r.Denied && strings.Contains(r.Output, want) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, fmt.Sprintf("no tool result shows %q", want))
		}
	}
	for _, p := range e.Created {
		if _, err := os.Lstat(filepath.Join(w.root, expand(p, w.vars))); err != nil {
			missing = append(missing, p+" was not created")
		}
	}
	for p, want := range e.Contains {
		b, err := os.ReadFile(filepath.Join(w.root, expand(p, w.vars)))
		if err != nil || !strings.Contains(string(b), expand(want, w.vars)) {
			missing = append(missing, fmt.Sprintf("%s does not contain %q", p, want))
		}
	}
	return missing
}

// shortForm names a leaked form without repeating the secret in the log.
func shortForm(f, token string) string {
	if f == token {
		return "plain"
	}
	return "encoded"
}

// describe is a one-line account of what the case's calls got.
func (o outcome) describe() string {
	var b strings.Builder
	for _, r := range o.results {
		verdict := string(r.Decision.Behavior)
		if r.Denied {
			verdict = "denied"
		}
		fmt.Fprintf(&b, "\n    %s %s: %s/%s %s", r.ID, r.Name, verdict, r.Decision.Layer, firstLine(r.Decision.Reason, 120))
		if !r.Denied {
			fmt.Fprintf(&b, "\n      output: %s", firstLine(r.Output, 160))
		}
	}
	for _, n := range o.notes {
		fmt.Fprintf(&b, "\n    note: %s", firstLine(n, 200))
	}
	return b.String()
}

func firstLine(s string, max int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// allowAll and denyAll stand in for the checker in the harness's own
// tests: with allowAll every attack must escape, with denyAll every
// control must fail.
type allowAll struct{}

// Check allows every call.
func (allowAll) Check(context.Context, permission.Request) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Layer: permission.LayerMode, Reason: "allow-all test checker"}
}

// AllowAlways accepts every rule.
func (allowAll) AllowAlways(string) error { return nil }

type denyAll struct{}

// Check denies every call.
func (denyAll) Check(context.Context, permission.Request) permission.Decision {
	return permission.Decision{Behavior: permission.Deny, Layer: permission.LayerRule, Reason: "deny-all test checker"}
}

// AllowAlways refuses every rule.
func (denyAll) AllowAlways(string) error { return fmt.Errorf("deny-all test checker") }

// marshalInput is the JSON of a case's first call, for reports.
func marshalInput(c *attackCase) string {
	turns := c.turnList()
	if len(turns) == 0 || len(turns[0]) == 0 {
		return ""
	}
	b, _ := json.Marshal(turns[0][0].Input)
	return string(b)
}
