package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// shellStateKey is where the session's shell manager lives in Env.State;
// Bash, BashOutput and KillShell share it.
const shellStateKey = "bash"

// Limits of the shells.
const (
	shellKillGrace  = 2 * time.Second // SIGTERM to SIGKILL
	shellDrainWait  = time.Second     // output still open after the group is gone (a setsid'd daemon holding the pipe)
	bgBufferCap     = 1 << 20         // unread output kept per background shell
	shellEnvFile    = "env"           // export -p of a foreground command, as its exit trap wrote it
	shellStatusRun  = "running"
	shellStatusDone = "completed"
	shellStatusFail = "failed"
	shellStatusKill = "killed"
)

// shellManager is the session's persistent shell. Each command runs in a
// fresh bash that restores the saved working directory and exported
// variables first and, for foreground commands, saves them again on exit;
// a hung command is then one process group to kill, not a shell to repair.
type shellManager struct {
	fg chan struct{} // one foreground command at a time, as in one shell

	mu  sync.Mutex
	dir string // private state directory, made on first use
	cwd string // working directory after the last foreground command
	// vars is the exported environment the last foreground command left,
	// parsed from what its exit trap wrote; nil before the first. It is
	// kept here, not in the state directory, because commands inside the
	// sandbox can write there: what restores it is nova's script, quoted
	// by nova, never a file a command wrote.
	vars    []declared
	seq     int
	nextID  int
	shells  map[string]*bgShell
	running map[*shellProc]struct{} // foreground processes, for Close
	forker  *forker                 // made on first start, closed by Close
	closed  bool
	// failed is the last command that failed inside the sandbox and the
	// last line it printed, for the ask of its retry outside.
	failed, failedLine string
	// marker is the session's run marker; each command's is marker.<n>,
	// n counted by started.
	marker  string
	started int
}

func newShellManager() *shellManager {
	return &shellManager{fg: make(chan struct{}, 1), shells: map[string]*bgShell{}, running: map[*shellProc]struct{}{}, marker: newRunMarker()}
}

// shellsOf returns the session's shell manager.
func shellsOf(env *Env) *shellManager {
	return env.State(shellStateKey, func() any { return newShellManager() }).(*shellManager)
}

// Close kills every background and running foreground shell and removes
// the state directory. It implements io.Closer for Env.Close.
func (m *shellManager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var procs []*shellProc
	for p := range m.running {
		procs = append(procs, p)
	}
	var bgs []*bgShell
	for _, s := range m.shells {
		bgs = append(bgs, s)
	}
	dir, f := m.dir, m.forker
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(p.kill)
	}
	for _, s := range bgs {
		wg.Go(func() { s.kill() })
	}
	wg.Wait()
	if f != nil {
		f.close()
	}
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove shell state directory: %w", err)
		}
	}
	return nil
}

// cwdFor returns the directory the next command starts in, and a note for
// the model when the saved one has disappeared.
func (m *shellManager) cwdFor(env *Env) (cwd, note string) {
	m.mu.Lock()
	saved := m.cwd
	m.mu.Unlock()
	home := env.Workdir
	if home == "" {
		home, _ = os.Getwd()
	}
	if saved == "" || saved == home {
		return home, ""
	}
	if st, err := os.Stat(saved); err != nil || !st.IsDir() {
		return home, fmt.Sprintf("[the shell's working directory %s no longer exists; running in %s instead]", saved, home)
	}
	return saved, ""
}

// stateDir returns the private state directory, making it on first use,
// and a number for this command's state files.
func (m *shellManager) stateDir(env *Env) (string, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", 0, errors.New("the session's shell has been closed")
	}
	if m.dir == "" {
		pattern := "nova-bash-*"
		if env.SessionID != "" {
			pattern = "nova-bash-" + safeName(env.SessionID) + "-*"
		}
		dir, err := os.MkdirTemp(env.ScratchDir, pattern)
		if err != nil {
			return "", 0, fmt.Errorf("create shell state directory: %w", err)
		}
		m.dir = dir
	}
	m.seq++
	return m.dir, m.seq, nil
}

// start runs script in bash in cwd, through the sandbox when there is one.
// Foreground processes are tracked so Close can kill them.
func (m *shellManager) start(env *Env, script, cwd string, out io.Writer, foreground bool, o runOpts) (*shellProc, error) {
	restore := m.restoreScript(proxiedShell(env))
	if restore != "" {
		script = restoreFromStdin + script
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = cwd
	m.mu.Lock()
	m.started++
	marker := m.marker + "." + strconv.Itoa(m.started)
	m.mu.Unlock()
	cmd.Env = withRunMarker(commandEnv(env), marker)
	release := func() {}
	sandboxed := env.Sandbox != nil && !o.unsandboxed
	if sandboxed {
		r, err := confine(env, cmd, o.hosts)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		release = r
	}
	// Starting under the lock means Close either sees the process or
	// refuses it; none slips past.
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		release()
		return nil, errors.New("the session's shell has been closed")
	}
	if m.forker == nil {
		m.forker = newForker()
	}
	p, err := startShellProc(m.forker, recordsOf(env), cmd, out, restore)
	if err != nil {
		release()
		return nil, err
	}
	p.release, p.marker, p.sandboxed = release, marker, sandboxed
	if foreground {
		m.running[p] = struct{}{}
	}
	return p, nil
}

// commandEnv is nova's environment as env's policy leaves it, with the
// settings' variables (env.ExtraEnv) set over it, sorted by name so a
// command sees the same environment however the map iterates.
func commandEnv(env *Env) []string {
	out, extra := env.EnvPolicy.Commands(os.Environ()), env.ExtraEnv
	if len(extra) == 0 {
		return out
	}
	keep := out[:0]
	for _, kv := range out {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; !over {
			keep = append(keep, kv)
		}
	}
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		keep = append(keep, k+"="+extra[k])
	}
	return keep
}

// withRunMarker sets the command's run marker in kv, replacing one it
// inherited (nova started by a command of another nova).
func withRunMarker(kv []string, marker string) []string {
	out := kv[:0]
	for _, e := range kv {
		if !strings.HasPrefix(e, runMarkerVar+"=") {
			out = append(out, e)
		}
	}
	return append(out, runMarkerVar+"="+marker)
}

// runOpts are how one command runs.
type runOpts struct {
	// unsandboxed runs it outside the sandbox (the model asked, and the
	// permission check let it).
	unsandboxed bool
	// auto says nova's read-only table allowed it unasked: git's
	// fsmonitor and hooks are switched off for it.
	auto bool
	// beside says it changes no shell state: it runs in a shell of its
	// own, next to other commands, and saves nothing back.
	beside bool
	// hosts judges the hosts the command reaches through the sandbox's
	// proxy, asking the person of its call; nil leaves them to the
	// sandbox's own judge (which asks nobody).
	hosts *callHosts
}

// gitOffScript switches off, for the command that follows, the git
// configuration that runs programs even in reading commands (core.fsmonitor
// runs on git status; hooks such as post-index-change run when git
// refreshes the index), by appending to git's command-line configuration
// in the environment (GIT_CONFIG_COUNT), as git -c would.
const gitOffScript = `__nova_gcc=${GIT_CONFIG_COUNT-}; __nova_gcn=${GIT_CONFIG_COUNT:-0}
export GIT_CONFIG_KEY_$__nova_gcn=core.fsmonitor GIT_CONFIG_VALUE_$__nova_gcn=false
export GIT_CONFIG_KEY_$((__nova_gcn+1))=core.hooksPath GIT_CONFIG_VALUE_$((__nova_gcn+1))=/dev/null
export GIT_CONFIG_COUNT=$((__nova_gcn+2))
`

// gitOffUndo takes gitOffScript's variables back out before the shell's
// state is saved, so later commands do not inherit them.
const gitOffUndo = `unset -v GIT_CONFIG_KEY_$__nova_gcn GIT_CONFIG_VALUE_$__nova_gcn GIT_CONFIG_KEY_$((__nova_gcn+1)) GIT_CONFIG_VALUE_$((__nova_gcn+1)); if [ -n "$__nova_gcc" ]; then export GIT_CONFIG_COUNT=$__nova_gcc; else unset -v GIT_CONFIG_COUNT; fi; unset -v __nova_gcc __nova_gcn; `

// fgOutcome is how a foreground command ended.
type fgOutcome struct {
	output      string
	exitCode    int
	timedOut    bool
	interrupted bool
	cwd         string // after the command
	note        string
}

// run runs command in the foreground until it exits, timeout passes or ctx
// is done, then saves the shell state the command left.
func (m *shellManager) run(ctx context.Context, env *Env, command string, timeout time.Duration, o runOpts) (fgOutcome, error) {
	if !o.beside {
		// One command that may change the shell at a time, as in one shell.
		select {
		case m.fg <- struct{}{}:
		case <-ctx.Done():
			return fgOutcome{interrupted: true}, nil
		}
		defer func() { <-m.fg }()
	}

	dir, seq, err := m.stateDir(env)
	if err != nil {
		return fgOutcome{}, err
	}
	cwd, note := m.cwdFor(env)
	envOut := filepath.Join(dir, shellEnvFile+"."+strconv.Itoa(seq))
	cwdOut := filepath.Join(dir, "cwd."+strconv.Itoa(seq))
	defer os.Remove(envOut)
	defer os.Remove(cwdOut)

	script := cdScript(cwd) + sandboxScript(env, o.unsandboxed)
	if !o.beside {
		script += saveTrap(envOut, cwdOut, o.auto)
	}
	if o.auto {
		script += gitOffScript
	}
	script += "eval " + shellQuote(command) + "\n"
	out := &headTail{max: bashMaxOutput}
	p, err := m.start(env, script, cwd, out, true, o)
	if err != nil {
		return fgOutcome{}, err
	}
	res := fgOutcome{cwd: cwd, note: note}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		res.timedOut = true
		p.kill()
	case <-ctx.Done():
		res.interrupted = true
		p.kill()
	}
	p.finish()
	m.mu.Lock()
	delete(m.running, p)
	m.mu.Unlock()

	res.output = out.String()
	res.exitCode = shellExitCode(p.state)
	if newCwd, ok := m.saveState(envOut, cwdOut); ok {
		res.cwd = newCwd
	}
	return res, nil
}

// saveState adopts the state a foreground command's exit trap wrote. The
// trap writes the cwd last, so a complete cwd file means a complete
// snapshot; a command killed before its trap ran leaves the state as it was.
// The files are the command's words (it can replace the trap): they are
// read as data, and only well-formed variable names are kept.
func (m *shellManager) saveState(envOut, cwdOut string) (string, bool) {
	b, err := os.ReadFile(cwdOut)
	if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
		return "", false
	}
	cwd := strings.TrimSuffix(string(b), "\n")
	if !filepath.IsAbs(cwd) {
		return "", false
	}
	data, err := os.ReadFile(envOut)
	if err != nil {
		return "", false
	}
	vars := []declared{}
	for _, d := range parseDeclares(string(data)) {
		if shellName(d.name) && !strings.ContainsRune(d.val, 0) {
			vars = append(vars, d)
		}
	}
	m.mu.Lock()
	m.cwd, m.vars = cwd, vars
	m.mu.Unlock()
	return cwd, true
}

// shellName reports whether s is a name bash can export.
func shellName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// background starts command as a background shell and returns it.
func (m *shellManager) background(env *Env, command, description string, o runOpts) (*bgShell, string, error) {
	if _, _, err := m.stateDir(env); err != nil {
		return nil, "", err
	}
	cwd, note := m.cwdFor(env)
	s := &bgShell{command: command, description: description, cwd: cwd, status: shellStatusRun, done: make(chan struct{})}
	script := cdScript(cwd) + sandboxScript(env, o.unsandboxed)
	if o.auto {
		script += gitOffScript
	}
	script += "eval " + shellQuote(command) + "\n"
	p, err := m.start(env, script, cwd, s, false, o)
	if err != nil {
		return nil, "", err
	}
	s.p = p
	m.mu.Lock()
	if m.closed { // Close ran between start and here and did not see s
		m.mu.Unlock()
		p.kill()
		p.finish()
		return nil, "", errors.New("the session's shell has been closed")
	}
	m.nextID++
	s.id = "bash_" + strconv.Itoa(m.nextID)
	m.shells[s.id] = s
	m.mu.Unlock()
	go s.watch()
	return s, note, nil
}

// shell returns background shell id, or an error naming the known ones.
func (m *shellManager) shell(id string) (*bgShell, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.shells[id]; ok {
		return s, nil
	}
	ids := make([]string, 0, len(m.shells))
	for k := range m.shells {
		ids = append(ids, k)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(ids[i], "bash_"))
		b, _ := strconv.Atoi(strings.TrimPrefix(ids[j], "bash_"))
		return a < b
	})
	known := "none have been started in this session"
	if len(ids) > 0 {
		known = "known shells: " + strings.Join(ids, ", ")
	}
	return nil, fmt.Errorf("no background shell with id %q (%s)", id, known)
}

// restoreFromStdin makes a command's bash read nova's restore script from
// its stdin, then gives the command /dev/null as stdin, as always. The
// script comes over a pipe, not in bash's arguments, whose size the kernel
// limits, and not from a file, which a sandboxed command could rewrite.
const restoreFromStdin = ". /dev/stdin >/dev/null 2>&1; exec </dev/null\n"

// restoreScript brings a fresh bash to the session's exported variables
// (unsetting those the session unset), written by nova from the parsed
// snapshot with every value quoted; "" before the first snapshot.
func (m *shellManager) restoreScript(keepProxy bool) string {
	m.mu.Lock()
	vars := m.vars
	m.mu.Unlock()
	if vars == nil {
		return ""
	}
	var b strings.Builder
	keep := "PWD|OLDPWD|SHLVL|_|" + runMarkerVar
	if keepProxy {
		keep += "|" + proxyVarsPattern
	}
	// The run marker is this command's, never the one the snapshot holds.
	b.WriteString("for __nova_v in $(compgen -e 2>/dev/null); do case $__nova_v in " + keep + ") ;; *) unset -v \"$__nova_v\" 2>/dev/null ;; esac; done\n")
	for _, d := range vars {
		switch d.name {
		case "PWD", "SHLVL", "_", runMarkerVar:
			continue // bash's own, and the marker is this command's
		}
		if keepProxy && proxyVar(d.name) {
			continue // this command's own (shellhosts.go)
		}
		if d.hasVal {
			b.WriteString("export " + d.name + "=" + shellQuote(d.val) + "\n")
		} else {
			b.WriteString("export " + d.name + "\n")
		}
	}
	b.WriteString("unset -v __nova_v\n")
	return b.String()
}

// cdScript moves a fresh bash to cwd, keeping OLDPWD so `cd -` still works.
func cdScript(cwd string) string {
	if cwd == "" {
		return ""
	}
	return "__nova_old=${OLDPWD-}\n" +
		"builtin cd -- " + shellQuote(cwd) + " || exit 1\n" +
		"if [ -n \"$__nova_old\" ]; then OLDPWD=$__nova_old; fi\nunset -v __nova_old\n"
}

// saveTrap saves the state on any exit, `exit N` inside the command
// included, keeping the command's exit status.
func saveTrap(envOut, cwdOut string, auto bool) string {
	undo := ""
	if auto {
		undo = gitOffUndo
	}
	body := fmt.Sprintf("__nova_ec=$?; %sbuiltin export -p >| %s 2>/dev/null; builtin pwd >| %s 2>/dev/null; exit $__nova_ec",
		undo, shellQuote(envOut), shellQuote(cwdOut))
	return "trap " + shellQuote(body) + " EXIT\n"
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellProc is one bash process, leader of its own process group, whose
// stdout and stderr share one pipe so their order is kept.
type shellProc struct {
	cmd     *exec.Cmd
	pgid    int
	r       *os.File
	exited  chan struct{} // closed when the leader has been reaped
	outDone chan struct{} // closed when reading output has ended
	state   *os.ProcessState
	// release gives back what the sandbox set up for the process, once it
	// and its group are gone.
	release func()
	// records holds the record of the group, record its path ("" for none),
	// for a nova killed before it could stop the group.
	records *shellRecords
	record  string
	// marker is the command's run marker, in the environment of every
	// process it starts; sandboxed says it runs under bwrap.
	marker    string
	sandboxed bool
}

// startShellProc starts cmd from f's thread with stdin from /dev/null, or
// a pipe carrying stdin when that is not "", copying its merged output to
// out, and records its process group in recs.
func startShellProc(f *forker, recs *shellRecords, cmd *exec.Cmd, out io.Writer, stdin string) (*shellProc, error) {
	var inW *os.File
	if stdin != "" {
		inR, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("create input pipe: %w", err)
		}
		defer inR.Close() // the child has its own copy once started
		cmd.Stdin, inW = inR, w
	}
	r, w, err := os.Pipe()
	if err != nil {
		if inW != nil {
			inW.Close()
		}
		return nil, fmt.Errorf("create output pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = w, w // an *os.File: the child writes to the pipe itself, Wait waits for nobody else
	setShellProcAttr(cmd)
	if err := f.start(cmd); err != nil {
		r.Close()
		w.Close()
		if inW != nil {
			inW.Close()
		}
		return nil, fmt.Errorf("start %s: %w", cmd.Args[0], err)
	}
	w.Close()
	if inW != nil {
		// A command killed before it read all of it breaks the pipe, which
		// ends the write.
		go func() {
			_, _ = io.WriteString(inW, stdin)
			inW.Close()
		}()
	}
	p := &shellProc{cmd: cmd, pgid: cmd.Process.Pid, r: r, exited: make(chan struct{}), outDone: make(chan struct{}), records: recs}
	// Recorded before Wait can reap the leader, while its pid is its own.
	p.record = recs.add(p.pgid)
	go func() {
		_, _ = io.Copy(out, r)
		close(p.outDone)
	}()
	go func() {
		_ = cmd.Wait() // the status is in ProcessState; a non-zero exit is not a failure here
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil
}

// kill stops the command, every process it started, and waits for the
// leader. The group gets the graceful kill; what left the group (bwrap's
// inner processes, which leave its session) is killed at once, and, in
// the sandbox, the whole command: a kill in bwrap's first moments, before
// --die-with-parent holds, would otherwise leave the command running.
func (p *shellProc) kill() {
	alive := true
	select {
	case <-p.exited:
		alive = false
	default:
	}
	killEscapees(p.pgid, p.marker, alive, p.sandboxed)
	killProcGroup(p.pgid, shellKillGrace)
	killMarked(p.marker)
	<-p.exited
}

// finish runs after the leader exited: it stops what the command left
// running in its group (`cmd &`; run_in_background is for that) and
// collects the rest of the output.
func (p *shellProc) finish() {
	killProcGroup(p.pgid, shellKillGrace)
	p.records.remove(p.record)
	p.record = ""
	select {
	case <-p.outDone:
	case <-time.After(shellDrainWait):
		p.r.Close() // something outside the group holds the pipe open
		<-p.outDone
	}
	p.r.Close()
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// headTail keeps the first and last max/2 bytes written to it.
type headTail struct {
	max   int
	head  []byte
	tail  []byte
	total int
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += n
	half := h.max / 2
	if room := half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= half {
		h.tail = append(h.tail[:0], p[len(p)-half:]...)
		return n, nil
	}
	h.tail = append(h.tail, p...)
	if len(h.tail) > 2*half {
		h.tail = append(h.tail[:0], h.tail[len(h.tail)-half:]...)
	}
	return n, nil
}

// String returns everything written, or head and tail around a marker
// saying how much was cut.
func (h *headTail) String() string {
	half := h.max / 2
	tail := h.tail
	if len(tail) > half {
		tail = tail[len(tail)-half:]
	}
	cut := h.total - len(h.head) - len(tail)
	if cut <= 0 {
		return string(h.head) + string(tail)
	}
	return strings.ToValidUTF8(string(h.head), "\uFFFD") +
		fmt.Sprintf("\n\n... [%d characters of output cut; showing the first %d and the last %d] ...\n\n", cut, len(h.head), len(tail)) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}
