package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// BenchmarkServe50Sessions is nova serve under 50 sessions streaming at
// once against an instant fake provider: the latency to each stream's
// first frame (p50, p99), the frames per second over all streams, and the
// server's peak RSS.
func BenchmarkServe50Sessions(b *testing.B) {
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
		cmd := exec.Command(novaBin, "serve", "--port", "0", "--no-sandbox")
		cmd.Dir = ws
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NOVA_HOME=" + filepath.Join(home, ".nova"),
			"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		m := regexp.MustCompile(`listening on (http://[^/]+)/\?token=(\S+)`).FindStringSubmatch(line)
		if err != nil || m == nil {
			b.Fatalf("no URL line: %q %v", line, err)
		}
		base, _ := url.QueryUnescape(m[1])
		token, _ := url.QueryUnescape(m[2])

		var mu sync.Mutex
		var firsts []time.Duration
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
				frames += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
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
