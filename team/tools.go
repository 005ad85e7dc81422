package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// Self is the team as one member's tools see it: the team and who calls.
type Self struct {
	Team *Team
	// Name is the caller's member id: LeadName or a teammate's name.
	Name string
}

// MemberTools are the tools every member has: messages and the board.
func MemberTools(s *Self) []tools.Tool {
	return []tools.Tool{&SendMessage{Self: s}, &TaskCreate{Self: s}, &TaskList{Self: s}, &TaskGet{Self: s}, &TaskUpdate{Self: s}}
}

// known reports whether to names a member of s's team.
func (s *Self) known(to string) (bool, []string, error) {
	ms, err := s.Team.Members()
	names := []string{LeadName}
	for _, m := range ms {
		names = append(names, m.Name)
	}
	for _, n := range names {
		if n == to {
			return true, names, err
		}
	}
	return false, names, err
}

// SendMessage sends a message to a teammate or the lead.
type SendMessage struct {
	tools.Input[sendInput]
	Self *Self
}

type sendInput struct {
	To      string `json:"to" jsonschema:"Who receives it: a teammate's name, or \"lead\" for the team's lead"`
	Message string `json:"message" jsonschema:"The message text: what the recipient should know or do"`
}

// Name implements tools.Tool.
func (*SendMessage) Name() string { return "SendMessage" }

// Kind implements tools.Tool: a message changes no file.
func (*SendMessage) Kind() permission.Kind { return permission.KindOther }

// Description implements tools.Tool.
func (*SendMessage) Description() string {
	return `Sends a message to a member of your team: a teammate by name, or "lead" for the team's lead. The recipient gets it as its next prompt (a teammate) or with its next prompt (the lead). Messages are delivered at least once and acted on once.

- Use it to hand over results, ask a teammate for something, or tell the lead you are blocked.
- Your final answer of each turn already goes to the lead: do not repeat it with SendMessage.
- Keep messages self-contained: the recipient does not see your conversation.`
}

// Run implements tools.Tool.
func (t *SendMessage) Run(_ context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in sendInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input for SendMessage: %v", err), nil
	}
	if in.To == t.Self.Name {
		return tools.Errorf("you are %s: send the message to another member", in.To), nil
	}
	ok, names, err := t.Self.known(in.To)
	if err != nil {
		return tools.Errorf("cannot read the team's members: %v", err), nil
	}
	if !ok {
		return tools.Errorf("team %s has no member %q; the members are: %s", t.Self.Team.Name, in.To, strings.Join(names, ", ")), nil
	}
	if strings.TrimSpace(in.Message) == "" {
		return tools.Errorf("the message is empty"), nil
	}
	msg, err := t.Self.Team.Mail.Send(Message{From: t.Self.Name, To: in.To, Text: in.Message})
	if err != nil {
		return tools.Errorf("message not sent: %v", err), nil
	}
	return tools.Result{Output: fmt.Sprintf("Message %s sent to %s.", msg.ID, in.To)}, nil
}

// TaskCreate adds a task to the team's board.
type TaskCreate struct {
	tools.Input[createInput]
	Self *Self
}

type createInput struct {
	Subject     string `json:"subject" jsonschema:"A short title of the task, in the imperative (\"Add tests for the parser\")"`
	Description string `json:"description" jsonschema:"What needs to be done and how to know it is done"`
}

// Name implements tools.Tool.
func (*TaskCreate) Name() string { return "TaskCreate" }

// Kind implements tools.Tool.
func (*TaskCreate) Kind() permission.Kind { return permission.KindOther }

// Description implements tools.Tool.
func (*TaskCreate) Description() string {
	return `Adds a task to the team's shared task board, as pending. Any member may then claim it with TaskUpdate (status "in_progress"). Returns the task's id.

Split work into tasks one teammate can finish on its own; say in the description how to know it is done.`
}

// Run implements tools.Tool.
func (t *TaskCreate) Run(_ context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in createInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input for TaskCreate: %v", err), nil
	}
	if strings.TrimSpace(in.Subject) == "" {
		return tools.Errorf("the task needs a subject"), nil
	}
	task, err := t.Self.Team.Board.Create(t.Self.Name, in.Subject, in.Description)
	if err != nil {
		return tools.Errorf("task not created: %v", err), nil
	}
	return tools.Result{Output: fmt.Sprintf("Task %s created: %s", task.ID, task.Subject)}, nil
}

// TaskList lists the team's board.
type TaskList struct {
	tools.Input[listInput]
	Self *Self
}

type listInput struct{}

// Name implements tools.Tool.
func (*TaskList) Name() string { return "TaskList" }

// Kind implements tools.Tool.
func (*TaskList) Kind() permission.Kind { return permission.KindRead }

// Description implements tools.Tool.
func (*TaskList) Description() string {
	return `Lists the tasks on the team's board: id, status, owner and subject. Use TaskGet for a task's description and notes.`
}

// Run implements tools.Tool.
func (t *TaskList) Run(_ context.Context, _ json.RawMessage, _ *tools.Env) (tools.Result, error) {
	tasks, err := t.Self.Team.Board.List()
	if err != nil {
		return tools.Errorf("cannot read the task board: %v", err), nil
	}
	if len(tasks) == 0 {
		return tools.Result{Output: "The task board is empty."}, nil
	}
	return tools.Result{Output: FormatBoard(tasks)}, nil
}

// FormatBoard renders tasks one per line: "#id [status] owner: subject".
func FormatBoard(tasks []Task) string {
	var b strings.Builder
	for _, tk := range tasks {
		fmt.Fprintf(&b, "#%s [%s]", tk.ID, tk.Status)
		if tk.Owner != "" {
			fmt.Fprintf(&b, " %s", tk.Owner)
		}
		fmt.Fprintf(&b, ": %s\n", tk.Subject)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TaskGet shows one task.
type TaskGet struct {
	tools.Input[getInput]
	Self *Self
}

type getInput struct {
	TaskID string `json:"task_id" jsonschema:"The task's id, as TaskList gives it (\"3\")"`
}

// Name implements tools.Tool.
func (*TaskGet) Name() string { return "TaskGet" }

// Kind implements tools.Tool.
func (*TaskGet) Kind() permission.Kind { return permission.KindRead }

// Description implements tools.Tool.
func (*TaskGet) Description() string {
	return `Shows one task of the team's board: subject, description, status, owner, its lease while claimed, and its progress notes.`
}

// Run implements tools.Tool.
func (t *TaskGet) Run(_ context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in getInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input for TaskGet: %v", err), nil
	}
	task, err := t.Self.Team.Board.Get(strings.TrimPrefix(in.TaskID, "#"))
	if err != nil {
		return taskErr(err), nil
	}
	return tools.Result{Output: FormatTask(task)}, nil
}

// FormatTask renders a task in full.
func FormatTask(tk Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task #%s: %s\nStatus: %s\n", tk.ID, tk.Subject, tk.Status)
	if tk.Owner != "" {
		fmt.Fprintf(&b, "Owner: %s", tk.Owner)
		if !tk.LeaseUntil.IsZero() {
			fmt.Fprintf(&b, " (lease until %s)", tk.LeaseUntil.UTC().Format(time.RFC3339))
		}
		b.WriteString("\n")
	}
	if tk.CreatedBy != "" {
		fmt.Fprintf(&b, "Created by: %s\n", tk.CreatedBy)
	}
	if tk.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", tk.Description)
	}
	if len(tk.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range tk.Notes {
			fmt.Fprintf(&b, "- %s %s: %s\n", n.Time.UTC().Format(time.RFC3339), n.By, n.Text)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func taskErr(err error) tools.Result {
	if errors.Is(err, ErrNoTask) {
		return tools.Errorf("%v; TaskList lists the tasks there are", err)
	}
	return tools.Errorf("%v", err)
}

// TaskUpdate claims, reports on or finishes a task.
type TaskUpdate struct {
	tools.Input[updateInput]
	Self *Self
}

type updateInput struct {
	TaskID   string `json:"task_id" jsonschema:"The task's id, as TaskList gives it"`
	Status   string `json:"status,omitempty" jsonschema:"The new status: \"in_progress\" claims the task for you, \"completed\" marks it done, \"pending\" gives it back to the board"`
	Progress string `json:"progress,omitempty" jsonschema:"A progress note to add to the task: what was done, what is left, what blocks it"`
}

// Name implements tools.Tool.
func (*TaskUpdate) Name() string { return "TaskUpdate" }

// Kind implements tools.Tool.
func (*TaskUpdate) Kind() permission.Kind { return permission.KindOther }

// Description implements tools.Tool.
func (*TaskUpdate) Description() string {
	return `Updates a task of the team's board on your behalf: claim it, add a progress note, finish it, or give it back.

- status "in_progress" claims the task: it is yours until you complete it or give it back. A task another member holds cannot be claimed; the error names the holder.
- status "completed" when the work is done (and committed, for a teammate); "pending" gives the task back.
- progress adds a note (what was done, what is left).
- While you work, your claim is kept alive for you. If you stop or die, the task goes back to the board when its lease expires.`
}

// Run implements tools.Tool.
func (t *TaskUpdate) Run(_ context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in updateInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input for TaskUpdate: %v", err), nil
	}
	if in.Status == "" && in.Progress == "" {
		return tools.Errorf("nothing to update: give a status (in_progress, completed, pending) or a progress note"), nil
	}
	task, err := t.Self.Team.Board.Update(strings.TrimPrefix(in.TaskID, "#"), t.Self.Name, Update{Status: in.Status, Progress: in.Progress})
	if err != nil {
		return taskErr(err), nil
	}
	var what string
	switch in.Status {
	case StatusInProgress:
		what = "claimed by " + t.Self.Name
	case StatusCompleted:
		what = "completed by " + t.Self.Name
	case StatusPending:
		what = "given back to the board"
	default:
		what = "noted"
	}
	return tools.Result{Output: fmt.Sprintf("Task #%s %s: %s [%s]", task.ID, what, task.Subject, task.Status)}, nil
}
