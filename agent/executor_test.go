package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// exSlowTool takes delay per call and records how many calls overlapped.
type exSlowTool struct {
	name    string
	delay   time.Duration
	running atomic.Int32
	maxPar  atomic.Int32
}

func (f *exSlowTool) Name() string            { return f.name }
func (f *exSlowTool) Description() string     { return "slow read-only test tool" }
func (f *exSlowTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f *exSlowTool) Kind() permission.Kind   { return permission.KindRead }
func (f *exSlowTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (f *exSlowTool) Run(ctx context.Context, in json.RawMessage, _ *tools.Env) (tools.Result, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		m := f.maxPar.Load()
		if n <= m || f.maxPar.CompareAndSwap(m, n) {
			break
		}
	}
	t := time.NewTimer(f.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return tools.Result{}, fmt.Errorf("%s: %w", f.name, ctx.Err())
	}
	return tools.Result{Output: f.name + " ran " + string(in)}, nil
}

// exHarness is an agent on a scripted client, with a real checker.
type exHarness struct {
	client *scripted
	agent  *Agent
	pipe   *tools.Pipeline
	env    *tools.Env
}

func newExHarness(tb testing.TB, mode permission.Mode, ts ...tools.Tool) *exHarness {
	tb.Helper()
	reg := tools.NewRegistry()
	for _, tl := range ts {
		if err := reg.Register(tl); err != nil {
			tb.Fatal(err)
		}
	}
	ws := tb.TempDir()
	checker, err := permission.NewChecker(permission.Config{Mode: mode, Workspace: ws, Home: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	env := tools.NewEnv(ws)
	env.SpillDir = tb.TempDir()
	tb.Cleanup(func() { _ = env.Close() })
	c := &scripted{}
	pipe := &tools.Pipeline{Registry: reg, Checker: checker}
	a := New(Config{Client: c, Model: "m", System: "sys", Pipeline: pipe, Env: env, ContextWindow: 1_000_000, MaxTokens: 4_000})
	return &exHarness{client: c, agent: a, pipe: pipe, env: env}
}

// exLiveProcs returns the pids of live processes (zombies count as gone:
// they hold no resources and wait only for a reaper) whose command line
// contains marker.
func exLiveProcs(marker string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		i := bytes.LastIndexByte(stat, ')')
		if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// exPoll polls cond until it holds or d has passed.
func exPoll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func TestCancelLeavesNoOrphanProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to inspect the process tree")
	}
	h := newExHarness(t, permission.ModeBypass, &tools.Bash{})
	// A unique fraction makes the sleeps recognisable in /proc; the first
	// is left in the background, as a careless command would.
	marker := fmt.Sprintf(".%d%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	cmd := fmt.Sprintf("sleep 300%s & sleep 301%s; echo finished", marker, marker)
	input, _ := json.Marshal(map[string]string{"command": cmd})
	h.client.add(reply("", call("c1", "Bash", string(input))), reply("never reached"))
	t.Cleanup(func() {
		// Whatever the outcome, do not leave this test's sleeps behind.
		for _, pid := range exLiveProcs(marker) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan []Event, 1)
	go func() { events <- drainAll(h.agent.Run(ctx, llm.UserText("run it"))) }()
	if !exPoll(30*time.Second, func() bool { return len(exLiveProcs(marker)) >= 2 }) {
		t.Fatalf("the command's processes never appeared (found %v)", exLiveProcs(marker))
	}
	cancel()

	var evs []Event
	select {
	case evs = <-events:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after it was cancelled")
	}
	if !exPoll(10*time.Second, func() bool { return len(exLiveProcs(marker)) == 0 }) {
		t.Fatalf("processes survived the cancelled run: %v", exLiveProcs(marker))
	}
	if d := evs[len(evs)-1].Done; d == nil || d.Subtype != SubtypeInterrupted {
		t.Errorf("done = %+v, want interrupted", d)
	}
	var res *ToolResult
	for _, ev := range evs {
		if ev.Type == EventToolResult && ev.Result.ID == "c1" {
			res = ev.Result
		}
	}
	if res == nil || !res.IsError || strings.Contains(res.Output, "finished") {
		t.Errorf("the Bash result shown = %+v, want an interrupted error", res)
	}
	if n := len(h.client.requests()); n != 1 {
		t.Errorf("the model was called %d times after the interrupt, want no further turn", n-1)
	}
}

func TestIndependentReadOnlyCallsOverlap(t *testing.T) {
	slow := &exSlowTool{name: "Slow", delay: 150 * time.Millisecond}
	h := newExHarness(t, permission.ModeDefault, slow)
	var calls []llm.ToolCall
	for i := 1; i <= 4; i++ {
		calls = append(calls, call(fmt.Sprintf("c%d", i), "Slow", fmt.Sprintf(`{"n":%d}`, i)))
	}
	h.client.add(reply("", calls...), reply("all read"))
	start := time.Now()
	evs := drainAll(h.agent.Run(context.Background(), llm.UserText("read four things")))
	elapsed := time.Since(start)

	if d := evs[len(evs)-1].Done; d == nil || d.Subtype != SubtypeSuccess || d.Result != "all read" {
		t.Fatalf("done = %+v", d)
	}
	if got := slow.maxPar.Load(); got < 2 {
		t.Errorf("at most %d of the 4 read-only calls ran at once, want them to overlap", got)
	}
	// Each call reported a result, and the model gets them back in the
	// order it made the calls, whatever order they finished in.
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Type == EventToolResult {
			seen[ev.Result.ID] = !ev.Result.IsError
		}
	}
	reqs := h.client.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	results := msgs[len(msgs)-1].Parts
	if len(results) != 4 {
		t.Fatalf("%d results went back to the model, want 4", len(results))
	}
	for i, p := range results {
		id := fmt.Sprintf("c%d", i+1)
		if !seen[id] {
			t.Errorf("no successful result event for %s", id)
		}
		if p.ToolResult == nil || p.ToolResult.CallID != id || p.ToolResult.Content[0].Text != fmt.Sprintf(`Slow ran {"n":%d}`, i+1) {
			t.Errorf("result %d = %+v, want %s's", i, p.ToolResult, id)
		}
	}
	t.Logf("4 calls of 150ms took %v (serial would be 600ms); timings are measured in BenchmarkParallelReadOnlyBatch", elapsed)
}

// drainAll reads a run to its end, answering nothing.
func drainAll(ch <-chan Event) []Event { return drain(ch, nil) }

// TestReadOnlyBashCallsOverlap: Bash calls nova's table allows unasked and
// that change no shell state run side by side, each in a shell of its own;
// a call that moves the shell, and every call after it, waits its turn, so
// a later call sees where the earlier one left the shell.
func TestReadOnlyBashCallsOverlap(t *testing.T) {
	h := newExHarness(t, permission.ModeDefault, &tools.Bash{})
	if err := os.Mkdir(filepath.Join(h.env.Workdir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("0.%d", 400+time.Now().Nanosecond()%90)
	var calls []llm.ToolCall
	for i := 1; i <= 3; i++ {
		calls = append(calls, call(fmt.Sprintf("c%d", i), "Bash", fmt.Sprintf(`{"command":"sleep %s; echo r%d"}`, marker, i)))
	}
	calls = append(calls, call("c4", "Bash", `{"command":"cd sub"}`), call("c5", "Bash", `{"command":"pwd"}`))
	h.client.add(reply("", calls...), reply("done"))
	stop := make(chan struct{})
	peak := make(chan int, 1)
	go func() {
		most := 0
		for {
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(5 * time.Millisecond):
				most = max(most, len(exLiveProcs("sleep "+marker)))
			}
		}
	}()
	evs := drainAll(h.agent.Run(context.Background(), llm.UserText("look around")))
	close(stop)
	if got := <-peak; got < 2 {
		t.Errorf("at most %d read-only Bash calls ran at once, want them to overlap", got)
	}
	out := map[string]string{}
	for _, ev := range evs {
		if ev.Type == EventToolResult {
			out[ev.Result.ID] = ev.Result.Output
		}
	}
	for i := 1; i <= 3; i++ {
		if id := fmt.Sprintf("c%d", i); out[id] != fmt.Sprintf("r%d", i) {
			t.Errorf("%s = %q", id, out[id])
		}
	}
	if !strings.HasSuffix(out["c5"], "/sub") {
		t.Errorf("pwd after cd ran before it or in another shell: %q", out["c5"])
	}
}
