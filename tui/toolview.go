package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/tools/display"
)

// toolState is where a tool call is in its life.
type toolState int

const (
	toolRunning toolState = iota
	toolDone
	toolFailed
	toolDenied
	toolInterrupted
)

// spinnerFrames animate running tool calls; the ticker that advances them
// runs only while something runs.
var spinnerFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// toolEntry is one tool call and, once it finished, its result.
type toolEntry struct {
	id, name string
	input    json.RawMessage
	state    toolState
	started  time.Time
	result   *agent.ToolResult
	// progress is the last progress the running call reported.
	progress *display.Progress
	// sub is the work of the subagent an Agent call started.
	sub *subagent
}

func (t *toolEntry) running() bool { return t.state == toolRunning }

// finish records the result.
func (t *toolEntry) finish(r *agent.ToolResult) {
	// Tabs would be expanded by the terminal to unknown widths.
	out := *r
	out.Output = strings.ReplaceAll(r.Output, "\t", "    ")
	t.result = &out
	if t.sub != nil {
		t.sub.interrupt() // its result ends the subagent's work
	}
	switch {
	case r.Denied:
		t.state = toolDenied
	case r.IsError:
		t.state = toolFailed
	default:
		t.state = toolDone
	}
}

// renderer is the renderer of the result's display kind, with the
// display; the zero renderer when there is none.
func (t *toolEntry) renderer() (displayRenderer, *display.Display) {
	if t.result == nil || t.result.Display == nil {
		return displayRenderer{}, nil
	}
	return rendererFor(t.result.Display.Kind), t.result.Display
}

// keyArg is the argument that says what a call is about. A path inside
// the workspace root is shown relative to it, as Claude Code does.
func (t *toolEntry) keyArg(root string) string {
	var in map[string]any
	if json.Unmarshal(t.input, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description", "prompt"} {
		if s, ok := in[k].(string); ok && s != "" {
			switch k {
			case "file_path", "notebook_path", "path":
				s = relPath(s, root)
			}
			return firstLine(s)
		}
	}
	for _, v := range in {
		if s, ok := v.(string); ok && s != "" {
			return firstLine(s)
		}
	}
	return ""
}

// relPath is p relative to root when it lies inside it ("." for root
// itself); any other path as it is.
func relPath(p, root string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

// summary is the one-line result of a finished call.
func (t *toolEntry) summary() string {
	r := t.result
	switch {
	case r == nil && t.state == toolInterrupted:
		return "interrupted"
	case r == nil && t.progress != nil:
		return progressText(*t.progress)
	case r == nil:
		return "running…"
	case t.state == toolDenied:
		reason := r.Decision.Reason
		if reason == "" {
			reason = firstLine(r.Output)
		}
		return "denied: " + reason
	case t.state == toolFailed:
		return "error: " + firstLine(r.Output)
	}
	if rd, d := t.renderer(); rd.summary != nil {
		if s := rd.summary(d, r); s != "" {
			return s
		}
	}
	if t.name == "Read" {
		if s := readSummary(r.Output); s != "" {
			return s
		}
	}
	n := countLines(r.Output)
	if n <= 1 {
		return firstLine(r.Output)
	}
	return fmt.Sprintf("%s (+%d lines)", firstLine(r.Output), n-1)
}

func (t *toolEntry) render(width int, rc renderCtx) []string {
	icon, dur := t.iconDuration(rc)
	if t.isAgentCall() {
		return t.renderAgent(icon, dur, width, rc)
	}
	out := []string{t.head(icon, dur, width, rc)}
	if t.result == nil {
		return out
	}
	if !rc.expanded {
		return append(out, t.collapsedDiff(rc)...)
	}
	return append(out, t.details(width, rc)...)
}

// iconDuration are the state's icon and the call's duration: the run's
// own once it finished, the time since it started while it runs.
func (t *toolEntry) iconDuration(rc renderCtx) (icon, dur string) {
	st := rc.st
	switch t.state {
	case toolRunning:
		icon = spinnerFrames[rc.frame%len(spinnerFrames)]
		dur = formatDuration(rc.now.Sub(t.started))
	case toolDone:
		icon = st.ok.Render("●")
	case toolFailed:
		icon = st.err.Render("✗")
	case toolDenied:
		icon = st.err.Render("⊘")
	case toolInterrupted:
		icon = st.warn.Render("◌")
	}
	if t.result != nil {
		dur = formatDuration(time.Duration(t.result.DurationMS) * time.Millisecond)
	}
	return icon, dur
}

// headLine is the call's line with its icon, as a collapsed Agent call
// shows its subagent's latest call.
func (t *toolEntry) headLine(width int, rc renderCtx) string {
	icon, dur := t.iconDuration(rc)
	return t.head(icon, dur, width, rc)
}

// head is the call's one line: icon, tool, key argument, duration and
// the summary of its result. A key argument too long for the line (a
// long command) is cut, not the line, so the result stays in view.
func (t *toolEntry) head(icon, dur string, width int, rc renderCtx) string {
	st := rc.st
	pre := icon + " " + st.toolName.Render(t.name)
	var post string
	if dur != "" {
		post += st.dim.Render(" · " + dur)
	}
	sum := t.summary()
	switch t.state {
	case toolFailed, toolDenied:
		post += st.dim.Render(" · ") + st.err.Render(sum)
	default:
		post += st.dim.Render(" · " + sum)
	}
	a := t.keyArg(rc.root)
	if a == "" {
		return pre + post
	}
	room := max(minArgWidth, width-ansi.StringWidth(pre)-ansi.StringWidth(post)-2)
	return pre + st.toolArg.Render("("+ansi.Truncate(a, room, "…")+")") + post
}

// minArgWidth is the least of a key argument a tool line keeps, however
// long its summary: past it the line itself is cut.
const minArgWidth = 20

// collapsedDiff is the start of a finished edit's diff, kept under its
// call while the transcript is collapsed: what was approved stays in view
// after the dialog closes, and ctrl+o shows the rest.
func (t *toolEntry) collapsedDiff(rc renderCtx) []string {
	_, d := t.renderer()
	if t.state != toolDone || d == nil || d.Kind != display.KindDiff {
		return nil
	}
	ls := diffsView(d, rc.st)
	if len(ls) == 0 {
		return nil
	}
	if len(ls) > collapsedDiffLines {
		more := len(ls) - collapsedDiffLines
		ls = append(ls[:collapsedDiffLines:collapsedDiffLines], rc.st.dim.Render(fmt.Sprintf("… +%d line%s (ctrl+o to expand)", more, plural(more))))
	}
	return indent(strings.Join(ls, "\n"), "  ⎿ ")
}

// details is the expanded body: what the display kind's renderer shows
// (a coloured diff, the command and the tail of its output), the start of
// the output otherwise. A failed call shows its error, except a command,
// whose output is the error.
func (t *toolEntry) details(width int, rc renderCtx) []string {
	st := rc.st
	var body []string
	rd, d := t.renderer()
	switch {
	case rd.body != nil && (t.state == toolDone || d.Kind == display.KindCommand && t.state != toolDenied):
		body = rd.body(d, t.result, width, st)
	default:
		ls := strings.Split(wrapPlain(t.result.Output, width-4), "\n")
		if len(ls) > 20 {
			ls = append(ls[:20], fmt.Sprintf("… %d more lines", len(ls)-20))
		}
		if t.state != toolDone {
			ls = styleLines(st.err, ls)
		}
		body = append(body, ls...)
	}
	if t.result.SpillPath != "" {
		body = append(body, st.dim.Render("full output: "+t.result.SpillPath))
	}
	return indent(strings.Join(body, "\n"), "  ⎿ ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

func countLines(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// progressText is a running call's progress: "3/10 · copying files".
func progressText(p display.Progress) string {
	var s string
	switch {
	case p.Total > 0:
		s = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	default:
		s = fmt.Sprintf("%g", p.Progress)
	}
	if p.Message != "" {
		s += " · " + firstLine(p.Message)
	}
	return "running… " + s
}

// readSummary says what a Read showed, as a sentence: "Read 42 lines",
// or "Read 2000 of 5120 lines" when the file goes on. It counts the
// numbered lines of the tool's output ("     7\tcode"); "" when the output is not
// numbered lines (an image, an empty file, a notebook), whose first line
// says it already.
func readSummary(out string) string {
	n, more := 0, 0
	for _, l := range strings.Split(out, "\n") {
		// finish made the tab after the number spaces.
		num, _, _ := strings.Cut(strings.TrimLeft(l, " "), " ")
		if num != "" && strings.Trim(num, "0123456789") == "" {
			n++
			continue
		}
		if _, err := fmt.Sscanf(l, "... %d more lines", &more); err == nil {
			break
		}
	}
	switch {
	case n == 0:
		return ""
	case more > 0:
		return fmt.Sprintf("Read %d of %d lines", n, n+more)
	}
	return fmt.Sprintf("Read %d line%s", n, plural(n))
}
