package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// BenchmarkVersion measures start-up: the median wall time of
// `nova --version`, which must not initialise providers, tools or the TUI.
func BenchmarkVersion(b *testing.B) {
	var times []time.Duration
	for range max(b.N, 21) {
		start := time.Now()
		if out, err := exec.Command(novaBin, "--version").Output(); err != nil || !bytes.HasPrefix(out, []byte("nova ")) {
			b.Fatalf("--version: %v %q", err, out)
		}
		times = append(times, time.Since(start))
	}
	b.ReportMetric(float64(median(times).Microseconds())/1000, "median-ms")
}

// BenchmarkPrintOneTurn is a one-turn `nova -p` against an instant fake
// provider: wall time and peak RSS of the whole process. The runs share
// one NOVA_HOME, as a person's do, so the sandbox probe is cached after
// the first.
func BenchmarkPrintOneTurn(b *testing.B) {
	benchPrint(b, oneTurn)
}

// BenchmarkPrintOneTurnFirstStart is BenchmarkPrintOneTurn with a new
// NOVA_HOME every run: the sandbox is probed (bwrap run once) every time.
func BenchmarkPrintOneTurnFirstStart(b *testing.B) {
	benchPrintIn(b, oneTurn, true)
}

// BenchmarkPrintOneTurnNoSandbox is BenchmarkPrintOneTurn with
// --no-sandbox: neither probe nor sandbox.
func BenchmarkPrintOneTurnNoSandbox(b *testing.B) {
	benchPrintIn(b, oneTurn, false, "--no-sandbox")
}

func oneTurn() []llmtest.Turn { return []llmtest.Turn{{Text: "hello"}} }

// BenchmarkPrintThreeTurns is `nova -p` through a 3-turn tool scenario
// (Read, Bash, answer) against an instant fake provider.
func BenchmarkPrintThreeTurns(b *testing.B) {
	benchPrint(b, func() []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "Read", Input: `{"file_path":"a.txt"}`}}},
			{ToolCalls: []llmtest.ToolCall{{ID: "t2", Name: "Bash", Input: `{"command":"wc -l a.txt"}`}}},
			{Text: "a.txt has 3 lines"},
		}
	})
}

// BenchmarkTurnOverhead is nova's own cost per model turn: the wall time of
// a 3-turn run minus the fake provider's scripted latency (chunk delays),
// divided by the turns. Process start-up is included.
func BenchmarkTurnOverhead(b *testing.B) {
	words := "one two three four five six seven eight nine ten"
	turns := func() []llmtest.Turn {
		const delay = 5 * time.Millisecond
		return []llmtest.Turn{
			{Text: words, ChunkDelay: delay, ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "Read", Input: `{"file_path":"a.txt"}`}}},
			{Text: words, ChunkDelay: delay, ToolCalls: []llmtest.ToolCall{{ID: "t2", Name: "Bash", Input: `{"command":"true"}`}}},
			{Text: words, ChunkDelay: delay},
		}
	}
	var overheads []time.Duration
	home := b.TempDir()
	for range max(b.N, 5) {
		srv := llmtest.New(turns()...)
		wall, _ := runPrintOnce(b, srv, home)
		overheads = append(overheads, (wall-srv.ScriptedDelay())/3)
		srv.Close()
	}
	b.ReportMetric(float64(median(overheads).Microseconds())/1000, "overhead-ms/turn")
}

func benchPrint(b *testing.B, turns func() []llmtest.Turn) { benchPrintIn(b, turns, false) }

// benchPrintIn runs `nova -p` with args; fresh gives every run a NOVA_HOME
// of its own.
func benchPrintIn(b *testing.B, turns func() []llmtest.Turn, fresh bool, args ...string) {
	var walls []time.Duration
	var peak int64
	home := b.TempDir()
	for range max(b.N, 5) {
		if fresh {
			home = b.TempDir()
		}
		srv := llmtest.New(turns()...)
		wall, rss := runPrintOnce(b, srv, home, args...)
		srv.Close()
		walls = append(walls, wall)
		peak = max(peak, rss)
	}
	b.ReportMetric(float64(median(walls).Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
}

// runPrintOnce runs `nova -p --allowedTools Bash` with args in a fresh
// workspace, with home as HOME, and returns its wall time and peak RSS in KiB.
func runPrintOnce(b *testing.B, srv *llmtest.Server, home string, args ...string) (time.Duration, int64) {
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("1\n2\n3\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	argv := append(append([]string{novaBin, "-p", "--allowedTools", "Bash"}, args...), "count the lines of a.txt")
	// ru_maxrss of a child this test binary starts counts the test
	// binary's own pages (the kernel keeps the high-water mark across the
	// exec), so the child is started by GNU time, a small process whose
	// own child's peak is nova's alone. Without it the figure is read from
	// /proc while nova runs.
	rssFile := filepath.Join(b.TempDir(), "rss")
	timeBin, terr := exec.LookPath("time")
	if terr == nil {
		argv = append([]string{timeBin, "-f", "%M", "-o", rssFile}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NOVA_HOME=" + filepath.Join(home, ".nova"),
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("nova -p: %v", err)
	}
	var polled int64
	stop, polledDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(polledDone)
		if terr == nil {
			return
		}
		for {
			if kb := vmHWM(cmd.Process.Pid); kb > 0 {
				polled = kb
			}
			select {
			case <-time.After(time.Millisecond):
			case <-stop:
				return
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(stop)
	<-polledDone
	if err != nil {
		b.Fatalf("nova -p: %v\n%s", err, stderr.String())
	}
	rss := polled
	if data, err := os.ReadFile(rssFile); err == nil {
		rss, _ = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	}
	return wall, rss
}

// vmHWM is the peak resident set of process pid in KiB, from /proc.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
