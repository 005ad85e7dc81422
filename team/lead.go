package team

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/gitwork"
	"github.com/nova-dev/nova/live"
)

// Inherit is what a teammate takes from its lead, so that it can never do
// what the lead could not: the lead's permission mode and tool rules from
// the command line, its sandbox choice and trust, and its project (whose
// settings, hooks and MCP servers the teammate reads).
type Inherit struct {
	ProjectDir      string   `json:"project_dir"`
	PermissionMode  string   `json:"permission_mode,omitempty"`
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	Sandbox         bool     `json:"sandbox,omitempty"`
	NoSandbox       bool     `json:"no_sandbox,omitempty"`
	Trust           bool     `json:"trust,omitempty"`
	AddDirs         []string `json:"add_dirs,omitempty"`
	// Model is the lead's model, the teammate's unless TeamSpawn names one.
	Model string `json:"model,omitempty"`
}

// WorkerSpec is what a worker process is started with, kept in
// workers/<name>.json of the team's directory.
type WorkerSpec struct {
	Team     string  `json:"team"`
	Name     string  `json:"name"`
	Model    string  `json:"model,omitempty"`
	Worktree string  `json:"worktree"`
	Branch   string  `json:"branch"`
	LeadPID  int     `json:"lead_pid"`
	Inherit  Inherit `json:"inherit"`
	// LeaseMS and PollMS override the board lease and the mailbox poll
	// (tests); 0 takes the defaults.
	LeaseMS int `json:"lease_ms,omitempty"`
	PollMS  int `json:"poll_ms,omitempty"`
}

func specPath(t *Team, name string) string { return filepath.Join(t.Dir, "workers", name+".json") }

// ReadSpec reads teammate name's worker spec.
func ReadSpec(t *Team, name string) (WorkerSpec, error) {
	var s WorkerSpec
	data, err := os.ReadFile(specPath(t, name))
	if err != nil {
		return s, fmt.Errorf("teammate %s of team %s: %w", name, t.Name, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s is not valid JSON: %v", specPath(t, name), err)
	}
	return s, nil
}

// Lead is the lead's side of a team: it starts teammates, merges their
// branches and reads what they send it.
type Lead struct {
	Team *Team
	// Repo is the lead's working directory, in a git repository.
	Repo string
	// Exe is the nova binary teammates run; Env their environment, which
	// ForLead passes through the session's policy (nil is this process's
	// whole environment).
	Exe string
	Env []string
	// Inherit is what every teammate takes from the lead.
	Inherit Inherit
	// Mode, when set, is the lead's permission mode now (it may have
	// switched to plan mode since the start): a teammate starts in it.
	Mode func() string
	// LeaseMS and PollMS are passed to workers (see WorkerSpec).
	LeaseMS, PollMS int
	// PID is the process whose end stops the teammates; 0 is this one.
	PID int
	// Worktrees is where teammates' worktrees are made
	// (NOVA_HOME/worktrees).
	Worktrees string

	mu     sync.Mutex
	exited map[string]chan struct{} // closed when the worker this lead started ends
}

// Exited is closed when teammate name, started by this lead, has ended; nil
// for one it did not start.
func (l *Lead) Exited(name string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.exited[name]
}

// Branch is the branch of teammate name of team.
func Branch(team, name string) string { return "nova/team/" + team + "/" + name }

// Spawn starts teammate name: a git worktree of the lead's repository on
// its own branch, and a nova worker process in it whose first prompt is
// prompt. model "" takes the lead's.
func (l *Lead) Spawn(ctx context.Context, name, prompt, model string) (Member, error) {
	if err := checkName("teammate name", name); err != nil {
		return Member{}, err
	}
	if _, ok, err := l.Team.Member(name); err != nil || ok {
		if err == nil {
			err = fmt.Errorf("team %s already has a teammate named %q; choose another name", l.Team.Name, name)
		}
		return Member{}, err
	}
	branch := Branch(l.Team.Name, name)
	w, err := gitwork.Add(ctx, l.Worktrees, l.Repo, WorktreeName(l.Team.Name, name), branch)
	if err != nil {
		// gitwork says what is wrong (no repository, no commit, the
		// name's branch or directory taken); this says what it was for.
		return Member{}, fmt.Errorf("cannot make teammate %s's git worktree: %w", name, err)
	}
	m, added, running, err := l.start(name, prompt, model, w)
	if err != nil && running {
		return m, err // the worker runs in its worktree: nothing to undo
	}
	if err != nil {
		// Undone, so that trying again is not refused for a name the
		// failed attempt took: the cause is this error, said once.
		if added {
			if rerr := l.Team.removeMember(name); rerr != nil {
				err = fmt.Errorf("%w (and its record could not be removed: %v)", err, rerr)
			}
			_ = l.Team.Mail.withdraw(name, "prompt-"+name)
		}
		if rerr := w.Remove(context.WithoutCancel(ctx)); rerr != nil {
			err = fmt.Errorf("%w (and its worktree %s could not be removed: %v)", err, w.Path, rerr)
		}
		return Member{}, err
	}
	return m, nil
}

// WorktreeName is the directory, under the repository's worktrees, of
// teammate name of team. '+' is in no team or teammate name, so no two
// teammates of any teams share one, nor a subagent's "agent-<id>".
func WorktreeName(team, name string) string { return team + "+" + name }

// start records teammate name, working in w, gives it its prompt and
// starts its worker. added says the record was made (and the prompt
// perhaps sent), running that the worker was started: for Spawn to know
// what to undo on a failure.
func (l *Lead) start(name, prompt, model string, w *gitwork.Worktree) (m Member, added, running bool, err error) {
	wt, branch := w.Path, w.Branch
	spec := WorkerSpec{Team: l.Team.Name, Name: name, Model: model, Worktree: wt, Branch: branch,
		LeadPID: cmp.Or(l.PID, os.Getpid()), Inherit: l.Inherit, LeaseMS: l.LeaseMS, PollMS: l.PollMS}
	if spec.Model == "" {
		spec.Model = l.Inherit.Model
	}
	if l.Mode != nil {
		spec.Inherit.PermissionMode = l.Mode()
	}
	data, _ := json.MarshalIndent(spec, "", "  ")
	if err := os.MkdirAll(filepath.Dir(specPath(l.Team, name)), 0o700); err != nil {
		return Member{}, false, false, err
	}
	if err := atomicfile.Write(specPath(l.Team, name), data, 0o600); err != nil {
		return Member{}, false, false, err
	}
	m = Member{Name: name, LeadPID: spec.LeadPID, Branch: branch, Worktree: wt, Model: spec.Model, Started: time.Now().UTC()}
	if err := l.Team.AddMember(m); err != nil {
		return Member{}, false, false, err // taken meanwhile: the record is another spawn's
	}
	// The first prompt is the first message: a worker that dies before it
	// is done is given it again.
	if _, err := l.Team.Mail.Send(Message{ID: "prompt-" + name, From: LeadName, To: name, Text: prompt}); err != nil {
		return Member{}, true, false, err
	}
	logf, err := os.OpenFile(filepath.Join(l.Team.Dir, "workers", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return Member{}, true, false, err
	}
	defer logf.Close()
	cmd := exec.Command(l.Exe, "team", "worker", "--team", l.Team.Name, "--name", name)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = wt, l.Env, logf, logf
	// Its own process group: a Ctrl-C meant for the lead's terminal does
	// not kill it mid-write; it stops when the lead is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return Member{}, true, false, fmt.Errorf("start teammate %s: %w", name, err)
	}
	done := make(chan struct{})
	l.mu.Lock()
	if l.exited == nil {
		l.exited = map[string]chan struct{}{}
	}
	l.exited[name] = done
	l.mu.Unlock()
	go func() { cmd.Wait(); close(done) }() // reaped, so Alive sees no zombie
	m.PID = cmd.Process.Pid
	if err := l.Team.UpdateMember(name, func(x *Member) { x.PID = m.PID }); err != nil {
		return m, true, true, err
	}
	return m, true, true, nil
}

// Alive reports whether process pid runs.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Shutdown asks teammate name to stop after its current turn.
func (l *Lead) Shutdown(name string) error {
	_, err := l.Team.Mail.Send(Message{ID: "shutdown-" + name, From: LeadName, To: name, Kind: KindShutdown, Text: "shutdown"})
	return err
}

// MergeResult is what a merge did.
type MergeResult struct {
	// Merged is false on a conflict (the merge was aborted) or when
	// there was nothing to merge.
	Merged bool
	// Conflicts are the files that conflicted.
	Conflicts []string
	// Output is git's.
	Output string
	// Uncommitted says the teammate's worktree has changes not committed
	// on its branch, which no merge takes.
	Uncommitted bool
}

// Merge merges teammate name's branch into the lead's current branch with
// git merge --no-ff. A conflict aborts the merge (git merge --abort) and
// is reported with its files; nothing is ever forced.
func (l *Lead) Merge(ctx context.Context, name string) (MergeResult, error) {
	var r MergeResult
	m, ok, err := l.Team.Member(name)
	if err != nil {
		return r, err
	}
	if !ok {
		return r, fmt.Errorf("team %s has no teammate %q", l.Team.Name, name)
	}
	if st, err := gitwork.Combined(ctx, m.Worktree, "status", "--porcelain"); err == nil && st != "" {
		r.Uncommitted = true
	}
	out, err := gitwork.Combined(ctx, l.Repo, "merge", "--no-ff", "-m", fmt.Sprintf("Merge teammate %s of team %s", name, l.Team.Name), m.Branch)
	r.Output = out
	if err == nil {
		r.Merged = !strings.Contains(out, "Already up to date")
		return r, nil
	}
	conflicts, _ := gitwork.Combined(ctx, l.Repo, "diff", "--name-only", "--diff-filter=U")
	if conflicts == "" {
		return r, fmt.Errorf("merge of %s failed and was not started: %s", m.Branch, out)
	}
	r.Conflicts = strings.Split(conflicts, "\n")
	if _, err := gitwork.Combined(ctx, l.Repo, "merge", "--abort"); err != nil {
		return r, fmt.Errorf("merge of %s conflicted in %s, and git merge --abort failed: %v", m.Branch, strings.Join(r.Conflicts, ", "), err)
	}
	return r, nil
}

// Incoming hands the lead's unprocessed messages to deliver, oldest first,
// each once: deliver puts it before the lead (into its next prompt) and
// returns nil once that is recorded; the message is then marked processed
// and acknowledged. A message deliver fails on stays for the next call.
// It is the seam a frontend polls before each of the lead's prompts.
func (l *Lead) Incoming(deliver func(Message) error) error {
	r, err := OpenReceiver[struct{}](l.Team.Mail, LeadName, filepath.Join(l.Team.Dir, "lead-state.json"))
	if err != nil {
		return err
	}
	msgs, err := r.Next()
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if err := r.Process(m, func(m Message, _ *struct{}) error { return deliver(m) }); err != nil {
			return err
		}
	}
	return nil
}

// FormatIncoming renders messages for a prompt, one block each, so the
// model tells a teammate's words from the person's.
func FormatIncoming(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<teammate-message from=%q id=%q>\n%s\n</teammate-message>\n", m.From, m.ID, m.Text)
	}
	return b.String()
}

// ForLead makes the session of rt (built from o) the lead of team name:
// it registers the lead's tools in rt's registry, and every teammate it
// starts runs exe (nova) with env under o's permission mode, tool rules,
// sandbox choice, trust and project. env (nil: this process's) is passed
// as rt's environment policy leaves it for a nova (tools.EnvPolicy.Nova):
// a teammate gets the provider variables it needs and no other secret.
// The lead's own claims are kept alive until ctx ends. A frontend calls
// it once after live.Build, and Lead.Incoming before each of the lead's
// prompts.
func ForLead(ctx context.Context, rt *live.Runtime, o live.Options, name, exe string, env []string) (*Lead, error) {
	tm, err := Open(o.NovaHome, name)
	if err != nil {
		return nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	l := &Lead{Team: tm, Repo: o.Workdir, Exe: exe, Env: rt.Env.EnvPolicy.Nova(env), Worktrees: filepath.Join(o.NovaHome, "worktrees"), Inherit: Inherit{
		ProjectDir: cmp.Or(o.ProjectDir, o.Workdir), PermissionMode: string(rt.Checker.Mode()),
		AllowedTools: o.AllowedTools, DisallowedTools: o.DisallowedTools,
		Sandbox: o.Sandbox, NoSandbox: o.NoSandbox, Trust: o.Trust, AddDirs: o.AddDirs,
		Model: rt.Selection.ID(),
	}, Mode: func() string { return string(rt.Checker.Mode()) }}
	for _, t := range LeadTools(l) {
		if err := rt.Registry.Register(t); err != nil {
			return nil, fmt.Errorf("register team tools: %w", err)
		}
	}
	go keepAlive(ctx, func() {}, tm.Board, LeadName, 0, DefaultPoll)
	return l, nil
}

// Relay hands the lead's incoming messages to the lead agent as they
// come, every poll, until ctx ends. tell queues a text for the agent's
// next request and closes its channel once the text is recorded in the
// lead's transcript (agent.Agent.Tell); a message is marked processed
// only then, so one the lead's process dies before recording is
// delivered again.
func (l *Lead) Relay(ctx context.Context, tell func(text string) <-chan struct{}, poll time.Duration) {
	if poll <= 0 {
		poll = DefaultPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		_ = l.Incoming(func(m Message) error {
			select {
			case <-tell(FormatIncoming([]Message{m})):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
