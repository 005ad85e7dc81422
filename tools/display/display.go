// Package display is what tools show a person beside what they tell the
// model: a small set of kinds, each with its own type. A tool returns one;
// every frontend (the TUI, the web UI, stream-json) renders it by kind,
// one renderer per kind, without guessing its shape.
package display

// Kind names what a Display holds; exactly the matching field is set.
type Kind string

// The kinds. A frontend that meets a kind it does not know shows the
// tool's output text alone.
const (
	// KindDiff is files a tool changed: Diffs.
	KindDiff Kind = "diff"
	// KindCommand is a shell command that ran: Command.
	KindCommand Kind = "command"
	// KindShell is the state of a background shell: Shell.
	KindShell Kind = "shell"
	// KindSearch is a search or a listing: Search.
	KindSearch Kind = "search"
	// KindFetch is a fetched web page: Fetch.
	KindFetch Kind = "fetch"
	// KindTodos is the session's todo list: Todos.
	KindTodos Kind = "todos"
	// KindQuestions is questions put to a person and the answers: Questions.
	KindQuestions Kind = "questions"
	// KindPlan is a plan-mode change: Plan.
	KindPlan Kind = "plan"
	// KindProgress is how far a running call has got: Progress. It is
	// only ever notified while the call runs, never a result's display.
	KindProgress Kind = "progress"
)

// Display is the typed value a tool returns for frontends; the model never
// sees it. It marshals as {"kind": ..., "<kind's field>": ...}.
type Display struct {
	Kind      Kind       `json:"kind"`
	Diffs     []FileDiff `json:"diffs,omitempty"`
	Command   *Command   `json:"command,omitempty"`
	Shell     *Shell     `json:"shell,omitempty"`
	Search    *Search    `json:"search,omitempty"`
	Fetch     *Fetch     `json:"fetch,omitempty"`
	Todos     []Todo     `json:"todos,omitempty"`
	Questions *Questions `json:"questions,omitempty"`
	Plan      *Plan      `json:"plan,omitempty"`
	Progress  *Progress  `json:"progress,omitempty"`
}

// FileDiff is one changed file: a unified diff frontends render.
type FileDiff struct {
	Path    string `json:"path"`
	Diff    string `json:"diff"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Command is a shell command and how it ended.
type Command struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// Cwd is the shell's directory after the command.
	Cwd string `json:"cwd"`
	// Background is the id of the shell the command went on in, when it
	// was started in the background.
	Background string `json:"background,omitempty"`
}

// Shell is a background shell: what it runs and where it is.
type Shell struct {
	ID          string `json:"id"`
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
	// Status is "running", "completed", "failed" or "killed".
	Status   string `json:"status"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// Search is what a search or a listing found.
type Search struct {
	// Count is how many there were, in Unit ("files", "entries",
	// "matches", "lines").
	Count int    `json:"count"`
	Unit  string `json:"unit"`
	// Truncated says fewer than Count are shown.
	Truncated bool `json:"truncated,omitempty"`
	// Denied is how many were left out because a deny rule covers them.
	Denied int `json:"denied,omitempty"`
}

// Fetch is a web page that was fetched, or a redirect that was not followed.
type Fetch struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	// Redirect is where a redirect to another host pointed; it was not
	// followed.
	Redirect    string `json:"redirect,omitempty"`
	Bytes       int    `json:"bytes,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	// Truncated says the page was cut to fit.
	Truncated bool `json:"truncated,omitempty"`
}

// Todo is one item of the todo list.
type Todo struct {
	Content string `json:"content"`
	// Status is "pending", "in_progress" or "completed".
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
	ID         string `json:"id,omitempty"`
}

// Questions are questions put to a person and the answers, in order; an
// empty answer is a question left unanswered.
type Questions struct {
	Questions []string `json:"questions"`
	Answers   []string `json:"answers"`
}

// Plan is what a plan-mode call did.
type Plan struct {
	// Plan is the Markdown plan ExitPlanMode presented; empty for EnterPlanMode.
	Plan string `json:"plan,omitempty"`
	// Approved is true when a person approved the plan.
	Approved bool `json:"approved"`
	// Mode is the permission mode after the call.
	Mode string `json:"mode"`
}

// Progress is a running call's report of how far it has got (an MCP
// server's notifications/progress).
type Progress struct {
	// CallID is the tool call that reports.
	CallID string `json:"call_id"`
	// Progress grows as work is done; Total is 0 when unknown.
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Diff is the display of changed files.
func Diff(diffs ...FileDiff) *Display { return &Display{Kind: KindDiff, Diffs: diffs} }

// OfCommand is the display of a shell command.
func OfCommand(c Command) *Display { return &Display{Kind: KindCommand, Command: &c} }

// OfShell is the display of a background shell.
func OfShell(s Shell) *Display { return &Display{Kind: KindShell, Shell: &s} }

// OfSearch is the display of a search or listing.
func OfSearch(s Search) *Display { return &Display{Kind: KindSearch, Search: &s} }

// OfFetch is the display of a fetched page.
func OfFetch(f Fetch) *Display { return &Display{Kind: KindFetch, Fetch: &f} }

// OfTodos is the display of the todo list.
func OfTodos(todos []Todo) *Display {
	return &Display{Kind: KindTodos, Todos: append([]Todo{}, todos...)}
}

// OfQuestions is the display of questions and their answers.
func OfQuestions(q Questions) *Display { return &Display{Kind: KindQuestions, Questions: &q} }

// OfPlan is the display of a plan-mode call.
func OfPlan(p Plan) *Display { return &Display{Kind: KindPlan, Plan: &p} }

// OfProgress is the display of a running call's progress.
func OfProgress(p Progress) *Display { return &Display{Kind: KindProgress, Progress: &p} }
