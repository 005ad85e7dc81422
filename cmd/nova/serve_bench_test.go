package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// BenchmarkServe50Sessions is nova serve under 50 sessions streaming at
// once against an instant fake provider: the latency to each stream's
// first frame (p50, p99), the frames per second over all streams, and the
// server's peak RSS.
func BenchmarkServe50Sessions(b *testing.B) { benchServe(b, false) }

// BenchmarkServe50SessionsOneMCP is BenchmarkServe50Sessions with one
// stdio MCP server configured (user scope; the test binary is the server):
// every open session runs its own, so it adds what 50 server processes
// cost: their count and summed PSS once all are up, how long until they
// are, and how many are left once every session is deleted (0: each
// session stops its servers when it closes).
func BenchmarkServe50SessionsOneMCP(b *testing.B) { benchServe(b, true) }

func benchServe(b *testing.B, withMCP bool) {
	const sessions = 50
	answer := strings.Repeat("streaming words to the browser ", 40) // ~1,200 chars
	for range b.N {
		turns := make([]llmtest.Turn, sessions)
		for i := range turns {
			turns[i] = llmtest.Turn{Text: answer}
		}
		srv := llmtest.New(turns...)
		home := b.TempDir()
		ws := b.TempDir()
		novaHome := filepath.Join(home, ".nova")
		if withMCP {
			env := map[string]string{}
			for _, kv := range mcptest.StdioEnv(mcptest.Options{}) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{"command": os.Args[0], "env": env}}})
			if err := os.MkdirAll(novaHome, 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(novaHome, "settings.json"), settings, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		cmd := exec.Command(novaBin, "serve", "--port", "0", "--no-sandbox", "--max-sessions", "0")
		cmd.Dir = ws
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NOVA_HOME=" + novaHome,
			"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		m := regexp.MustCompile(`listening on (http://[^/]+)/#token=(\S+)`).FindStringSubmatch(line)
		if err != nil || m == nil {
			b.Fatalf("no URL line: %q %v", line, err)
		}
		base, _ := url.QueryUnescape(m[1])
		token, _ := url.QueryUnescape(m[2])

		var mu sync.Mutex
		var firsts []time.Duration
		var ids []string
		frames := 0
		var wg sync.WaitGroup
		start := time.Now()
		for range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("POST", base+"/api/chat/stream", strings.NewReader(`{"message":"go"}`))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				n, first := 0, time.Duration(0)
				for sc.Scan() {
					if !strings.HasPrefix(sc.Text(), "data: ") {
						continue
					}
					if n == 0 {
						first = time.Since(t0)
					}
					n++
				}
				mu.Lock()
				firsts = append(firsts, first)
				ids = append(ids, resp.Header.Get("x-nova-session-id"))
				frames += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		if withMCP {
			// The servers start in the background: wait (bounded) for all.
			var procs []int
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if procs = children(cmd.Process.Pid); len(procs) >= sessions || time.Now().After(deadline) {
					break
				}
			}
			ready := time.Since(start)
			var mem int64
			for _, p := range procs {
				mem += pss(p)
			}
			for _, id := range ids {
				req, _ := http.NewRequest("DELETE", base+"/api/sessions/"+id, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
					b.Fatalf("DELETE %s: %v %v", id, resp, err)
				} else {
					resp.Body.Close()
				}
			}
			b.ReportMetric(float64(len(procs)), "mcp-procs")
			b.ReportMetric(float64(ready.Milliseconds()), "mcp-all-up-ms")
			b.ReportMetric(float64(mem)/1024, "mcp-pss-MB")
			b.ReportMetric(float64(len(children(cmd.Process.Pid))), "mcp-procs-after-delete")
		}
		rss := vmHWM(cmd.Process.Pid)
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		srv.Close()
		if len(firsts) != sessions {
			b.Fatalf("%d of %d streams finished", len(firsts), sessions)
		}
		sort.Slice(firsts, func(i, j int) bool { return firsts[i] < firsts[j] })
		b.ReportMetric(float64(firsts[len(firsts)/2].Microseconds())/1000, "first-frame-p50-ms")
		b.ReportMetric(float64(firsts[len(firsts)*99/100].Microseconds())/1000, "first-frame-p99-ms")
		b.ReportMetric(float64(frames)/elapsed.Seconds(), "frames/s")
		b.ReportMetric(float64(rss)/1024, "server-rss-MB")
		if testing.Verbose() {
			fmt.Printf("%d streams, %d frames in %s\n", sessions, frames, elapsed)
		}
	}
}

// children are the pids of the live (not zombie) processes whose parent
// is pid.
func children(pid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[0] == "Z" || f[1] != strconv.Itoa(pid) {
			continue
		}
		if c, err := strconv.Atoi(filepath.Base(filepath.Dir(d))); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// pss is the proportional set of process pid now, in kB: its resident
// memory with the pages it shares (the binary's text) divided among the
// processes sharing them, so a sum over processes counts them once.
func pss(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
