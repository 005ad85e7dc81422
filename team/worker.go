package team

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
)

// DefaultPoll is how often a worker looks at its mailbox and whether its
// lead still runs.
const DefaultPoll = 500 * time.Millisecond

// WorkerOptions are what nova team worker runs with.
type WorkerOptions struct {
	NovaHome, Home string
	Getenv         func(string) string
	Team, Name     string
	// Version is nova's, told to MCP servers.
	Version string
}

// workerState is a worker's own state beside the ids it processed.
type workerState struct {
	// Turns counts the prompts it answered.
	Turns int `json:"turns"`
}

// RunWorker is a teammate's process: a full agent in the teammate's
// worktree under the lead's settings, non-interactive (an ask is a
// denial), with the team tools. It runs each mailbox message as a prompt,
// once (recorded, then acknowledged, after its turn), sends each turn's
// answer to the lead, keeps its claims alive, and returns on a shutdown
// message or when the lead's process is gone.
func RunWorker(ctx context.Context, o WorkerOptions) error {
	tm, err := Existing(o.NovaHome, o.Team)
	if err != nil {
		return err
	}
	spec, err := ReadSpec(tm, o.Name)
	if err != nil {
		return err
	}
	if spec.LeaseMS > 0 {
		tm.Board.Lease = time.Duration(spec.LeaseMS) * time.Millisecond
	}
	poll := DefaultPoll
	if spec.PollMS > 0 {
		poll = time.Duration(spec.PollMS) * time.Millisecond
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := spec.Inherit
	rt, err := live.Build(ctx, live.Options{
		NovaHome: o.NovaHome, Workdir: spec.Worktree, Home: o.Home, Getenv: o.Getenv,
		ProjectDir: in.ProjectDir, Model: spec.Model, PermissionMode: in.PermissionMode,
		AllowedTools: in.AllowedTools, DisallowedTools: in.DisallowedTools,
		Sandbox: in.Sandbox, NoSandbox: in.NoSandbox, Trust: in.Trust, AddDirs: in.AddDirs,
		AppendSystem: teammatePrompt(spec), Version: o.Version,
	})
	if err != nil {
		return fmt.Errorf("teammate %s: %w", o.Name, err)
	}
	defer rt.Close()
	for _, t := range MemberTools(&Self{Team: tm, Name: o.Name}) {
		if err := rt.Registry.Register(t); err != nil {
			return fmt.Errorf("register team tools: %w", err)
		}
	}
	if err := tm.UpdateMember(o.Name, func(m *Member) { m.SessionID, m.Exited = rt.Session.ID(), time.Time{} }); err != nil {
		return err
	}
	defer tm.UpdateMember(o.Name, func(m *Member) { m.Exited = time.Now().UTC() })
	go keepAlive(ctx, cancel, tm.Board, o.Name, spec.LeadPID, poll)

	r, err := OpenReceiver[workerState](tm.Mail, o.Name, filepath.Join(tm.Dir, "workers", o.Name+".state.json"))
	if err != nil {
		return err
	}
	for {
		if _, err := tm.Mail.Wait(ctx, o.Name, poll); err != nil {
			if ctx.Err() != nil {
				return nil // the lead is gone, or the process is stopping
			}
			return err
		}
		msgs, err := r.Next()
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Kind == KindShutdown {
				return r.Process(m, func(Message, *workerState) error { return nil })
			}
			err := r.Process(m, func(m Message, st *workerState) error {
				answer, err := turn(ctx, rt, m)
				if err != nil {
					return err
				}
				st.Turns++
				// The reply's id follows from the prompt's: a turn run
				// again after a crash before it was recorded sends the
				// same message, not a second one.
				_, err = tm.Mail.Send(Message{ID: "reply-" + m.ID, From: o.Name, To: LeadName, Text: answer})
				return err
			})
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
	}
}

// turn runs m as a prompt and returns the answer for the lead.
func turn(ctx context.Context, rt *live.Runtime, m Message) (string, error) {
	prompt := m.Text
	if m.ID != "prompt-"+m.To {
		prompt = fmt.Sprintf("Message from %s:\n\n%s", m.From, m.Text)
	}
	var done *agent.Done
	for ev := range rt.Live.Run(ctx, llm.UserText(prompt)) {
		if ev.Type == agent.EventDone {
			done = ev.Done
		}
	}
	if ctx.Err() != nil {
		return "", ctx.Err() // interrupted: not processed, run again by the next worker
	}
	switch {
	case done == nil:
		return "", fmt.Errorf("the turn ended without a result")
	case done.IsError:
		return fmt.Sprintf("(my turn ended with an error: %s)\n%s", done.Error, done.Result), nil
	}
	return done.Result, nil
}

// keepAlive renews member's claims every third of the lease and cancels
// the worker when its lead's process is gone.
func keepAlive(ctx context.Context, cancel context.CancelFunc, b *Board, member string, leadPID int, poll time.Duration) {
	beat := time.NewTicker(b.Lease / 3)
	defer beat.Stop()
	look := time.NewTicker(poll)
	defer look.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			_, _ = b.Renew(member) // a failed beat is retried at the next; the lease covers two
		case <-look.C:
			if leadPID > 0 && !Alive(leadPID) {
				cancel()
				return
			}
		}
	}
}

// teammatePrompt tells the teammate where it stands.
func teammatePrompt(s WorkerSpec) string {
	return fmt.Sprintf(`You are %q, a teammate in team %q, working for the team's lead ("lead").
You work in your own git worktree, %s, on branch %s. Commit your work on that branch with git when a task is done: the lead merges your branch, and only committed work is merged.
Your final answer of each turn is sent to the lead; make it a short report of what you did and what is left. Use SendMessage to reach the lead or a teammate in between, and TaskList, TaskGet and TaskUpdate for the team's task board: claim a task (status in_progress) before you work on it, add progress notes, and mark it completed when done.
Nobody can answer permission questions: a call that would need approval is denied; say so in your answer rather than trying another way around it.`, s.Name, s.Team, s.Worktree, s.Branch)
}
