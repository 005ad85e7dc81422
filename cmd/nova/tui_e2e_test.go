package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm/llmtest"
)

// tmuxTerm is a nova running in a detached tmux pane, on a tmux server of
// its own so tests never touch a person's sessions.
type tmuxTerm struct {
	t      testing.TB
	socket string
	name   string
}

// startTUI runs the real binary in a 100x30 tmux pane in e's workspace,
// which it trusts first (in e's NOVA_HOME) so no trust dialog comes up.
func (e *e2e) startTUI(args ...string) *tmuxTerm {
	e.t.Helper()
	if _, _, err := config.NewTrustStore(filepath.Join(e.home, ".nova")).Trust(e.ws); err != nil {
		e.t.Fatal(err)
	}
	return startTmux(e.t, e.ws, e.env, args...)
}

func startTmux(t testing.TB, dir string, env []string, args ...string) *tmuxTerm {
	t.Helper()
	return startTmuxSized(t, dir, env, 100, 30, args...)
}

// startTUISized is startTUI in a pane of width×height.
func (e *e2e) startTUISized(width, height int, args ...string) *tmuxTerm {
	e.t.Helper()
	if _, _, err := config.NewTrustStore(filepath.Join(e.home, ".nova")).Trust(e.ws); err != nil {
		e.t.Fatal(err)
	}
	return startTmuxSized(e.t, e.ws, e.env, width, height, args...)
}

func startTmuxSized(t testing.TB, dir string, env []string, width, height int, args ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tm := &tmuxTerm{t: t, socket: fmt.Sprintf("nova-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "nova"}
	cmdline := []string{"-L", tm.socket, "-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-s", tm.name, "-c", dir}
	for _, kv := range append(env, "TERM=xterm-256color") {
		cmdline = append(cmdline, "-e", kv)
	}
	cmdline = append(cmdline, append([]string{novaBin}, args...)...)
	if out, err := exec.Command("tmux", cmdline...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	// Keep the pane after nova exits so its last screen can be read.
	_ = exec.Command("tmux", "-L", tm.socket, "set-option", "-t", tm.name, "remain-on-exit", "on").Run()
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmuxTerm) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names ("Enter", "Escape", "C-c") or literal text.
func (tm *tmuxTerm) keys(keys ...string) {
	tm.tmux(append([]string{"send-keys", "-t", tm.name}, keys...)...)
}

// typeText sends text literally.
func (tm *tmuxTerm) typeText(s string) { tm.tmux("send-keys", "-t", tm.name, "-l", s) }

func (tm *tmuxTerm) screen() string { return tm.tmux("capture-pane", "-p", "-t", tm.name) }

// scrollback is the screen and the 100 lines above it. (A pane kept after
// its program exited shows its first line in the history.)
func (tm *tmuxTerm) scrollback() string {
	return tm.tmux("capture-pane", "-p", "-S", "-100", "-t", tm.name)
}

// waitFor polls the screen until it shows want, failing at the deadline.
func (tm *tmuxTerm) waitFor(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q; last screen:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForText is waitFor for words the TUI may wrap anywhere (a path of
// unknown length before them): the screen's line breaks and indentation
// count as one space.
func (tm *tmuxTerm) waitForText(want string) string {
	tm.t.Helper()
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(flat(s), flat(want)) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q; last screen:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGone polls the screen until it no longer shows text.
func (tm *tmuxTerm) waitGone(text string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Contains(tm.screen(), text) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen still shows %q:\n%s", text, tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// paste pastes text as a terminal does: bracketed (nova asks for it) and
// with its line feeds sent as carriage returns, tmux's default.
func (tm *tmuxTerm) paste(text string) {
	tm.t.Helper()
	cmd := exec.Command("tmux", "-L", tm.socket, "load-buffer", "-b", "e2e", "-")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		tm.t.Fatalf("tmux load-buffer: %v: %s", err, out)
	}
	tm.tmux("paste-buffer", "-p", "-d", "-b", "e2e", "-t", tm.name)
}

// exited reports whether nova has exited (the pane is dead).
func (tm *tmuxTerm) waitExit() {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.TrimSpace(tm.tmux("display-message", "-p", "-t", tm.name, "#{pane_dead}")) == "1" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("nova did not exit; screen:\n%s", tm.screen())
}

func TestTUIEndToEnd(t *testing.T) {
	long := strings.Repeat("This answer goes on and on. ", 60)
	var points strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&points, "- Point %d of the welcome.\n", i)
	}
	welcome := points.String()
	e := newE2E(t,
		llmtest.Turn{Text: "Hello from nova, streamed.", ChunkDelay: 5 * time.Millisecond},
		llmtest.Turn{Text: "Saying hello"}, // the session title, asked for after the first run
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo approved > approved.txt && echo wrote-it"})}}},
		llmtest.Turn{Text: "Created approved.txt."},
		llmtest.Turn{Text: long, ChunkDelay: 100 * time.Millisecond},
		llmtest.Turn{Text: "Welcome back.\n\n" + welcome},
	)
	tm := e.startTUI()
	tm.waitFor("Ask nova anything")

	tm.typeText("say hello")
	tm.keys("Enter")
	tm.waitFor("Hello from nova, streamed.")
	// The title request runs in the background after the first answer;
	// let it take its scripted turn before the next prompt takes one.
	deadline := time.Now().Add(20 * time.Second)
	for len(e.srv.Requests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Fatalf("after the first answer the provider saw %d requests, want the answer and the title", n)
	}

	tm.typeText("make a file")
	tm.keys("Enter")
	tm.waitFor("Allow Bash?")
	tm.keys("y")
	tm.waitFor("Created approved.txt.")
	tm.waitFor("Bash(echo approved > approved.txt && echo wrote-it)")
	tm.waitFor("· wrote-it") // the result's one-line summary
	if got := e.read("approved.txt"); got != "approved\n" {
		t.Errorf("approved.txt = %q", got)
	}

	tm.typeText("tell me a long story")
	tm.keys("Enter")
	tm.waitFor("This answer goes on")
	tm.keys("Escape")
	tm.waitFor("Interrupted")
	tm.waitFor("? for keys")

	// A terminal pastes lines separated by CR (tmux paste-buffer turns the
	// buffer's LFs into CRs, inside bracketed paste): 200 of them fold.
	var paste strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&paste, "pasted row %d\n", i)
	}
	tm.paste(paste.String())
	tm.waitFor("[pasted 200 lines]")
	tm.keys("C-c") // clears the input

	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	// The alternate screen is gone; the whole conversation (every earlier
	// answer, not only the last) and the way back to the session are in
	// the terminal's scrollback.
	exitScreen := tm.scrollback()
	for _, want := range []string{"say hello", "Hello from nova, streamed.", "Created approved.txt.", "This answer goes on and on.", "Resume this session with: nova -r "} {
		if !strings.Contains(exitScreen, want) {
			t.Errorf("after quitting the terminal lacks %q:\n%s", want, exitScreen)
		}
	}

	// A second nova resumes the first session with /resume.
	tm2 := e.startTUI()
	tm2.waitFor("Ask nova anything")
	tm2.typeText("/resume")
	tm2.keys("Enter")
	tm2.waitFor("Resume a session")
	tm2.keys("Enter")
	tm2.waitFor("Resumed session")
	// The earlier prompts are in the transcript, above the long answer.
	for i := 0; i < 10 && !strings.Contains(tm2.screen(), "say hello"); i++ {
		tm2.keys("PageUp")
	}
	tm2.waitFor("say hello")
	tm2.keys("End")
	tm2.typeText("are you there?")
	tm2.keys("Enter")
	tm2.waitFor("Point 40 of the welcome.")
	// The answer is taller than the screen. Scrolled up, the view says
	// how much is below; End goes back.
	tm2.keys("PageUp")
	tm2.waitFor("lines below · end to return")
	tm2.keys("End")
	tm2.waitGone("lines below")
	if body := string(e.srv.Requests()[5].Body); !strings.Contains(body, "say hello") {
		t.Error("the resumed request lacks the earlier conversation")
	}
	tm2.typeText("/exit")
	tm2.keys("Enter")
	tm2.waitExit()
}

// BenchmarkTUIIdleCPU measures the CPU time the real binary uses while it
// sits idle for 10 s in a terminal (target: under 0.01 s). Run with
// go test -run '^$' -bench TUIIdleCPU -benchtime 1x ./cmd/nova/
func BenchmarkTUIIdleCPU(b *testing.B) {
	home := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NOVA_HOME=" + filepath.Join(home, ".nova"),
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=http://127.0.0.1:1"}
	for i := 0; i < b.N; i++ {
		tm := startTmux(b, b.TempDir(), env, "--trust")
		tm.waitFor("Ask nova anything")
		pid := strings.TrimSpace(tm.tmux("display-message", "-p", "-t", tm.name, "#{pane_pid}"))
		before := cpuSeconds(b, pid)
		time.Sleep(10 * time.Second) // the measurement itself, not synchronisation
		used := cpuSeconds(b, pid) - before
		b.ReportMetric(used, "cpu-s/10s-idle")
		tm.keys("C-c")
		tm.keys("C-c")
	}
}

// cpuSeconds is the CPU time of a process: the sum over its threads of
// /proc/<pid>/task/<tid>/schedstat (nanoseconds), which is exact where
// /proc/<pid>/stat counts 10 ms ticks.
func cpuSeconds(b *testing.B, pid string) float64 {
	tasks, err := filepath.Glob("/proc/" + pid + "/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		b.Skipf("no /proc schedstat for %s", pid)
	}
	var ns float64
	for _, p := range tasks {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			v, _ := strconv.ParseFloat(f[0], 64)
			ns += v
		}
	}
	return ns / 1e9
}
