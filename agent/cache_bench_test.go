package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// cacheRequests is the length of the benchmark session, and cacheFrom the
// first request its target counts.
const cacheRequests, cacheFrom = 25, 5

// cacheScript is the benchmark session: four prompts, 25 model requests,
// tool calls on most, and one turn of 12 parallel Reads.
func cacheScript() [][]llmtest.Turn {
	n := 0
	calls := func(name string, inputs ...map[string]any) []llmtest.ToolCall {
		var out []llmtest.ToolCall
		for _, in := range inputs {
			n++
			b, _ := json.Marshal(in)
			out = append(out, llmtest.ToolCall{ID: fmt.Sprintf("toolu_%03d", n), Name: name, Input: string(b)})
		}
		return out
	}
	read := func(files ...string) []llmtest.ToolCall {
		var in []map[string]any
		for _, f := range files {
			in = append(in, map[string]any{"file_path": f})
		}
		return calls("Read", in...)
	}
	var twelve []string
	for i := 1; i <= 12; i++ {
		twelve = append(twelve, fmt.Sprintf("pkg/f%02d.go", i))
	}
	say := func(s string) string { return s + " " + strings.Repeat("Noting what this shows. ", 6) }
	return [][]llmtest.Turn{
		{
			{Text: say("Looking at the layout."), ToolCalls: calls("LS", map[string]any{"path": "."})},
			{Text: say("Finding the Go files."), ToolCalls: calls("Glob", map[string]any{"pattern": "**/*.go"})},
			{Text: say("Reading the entry point."), ToolCalls: read("main.go")},
			{Text: say("Searching for handlers."), ToolCalls: calls("Grep", map[string]any{"pattern": "func Handle", "output_mode": "content"})},
			{Text: say("The package is small: the main loop calls one handler per file.")},
		},
		{
			{Text: say("Reading every file of the package at once."), ToolCalls: read(twelve...)},
			{Text: say("Checking the first handler's helper."), ToolCalls: read("pkg/f03.go")},
			{Text: say("Searching for the error path."), ToolCalls: calls("Grep", map[string]any{"pattern": "errors.New", "output_mode": "content"})},
			{Text: say("Looking for tests."), ToolCalls: calls("Glob", map[string]any{"pattern": "**/*_test.go"})},
			{Text: say("Reading the test."), ToolCalls: read("main_test.go")},
			{Text: say("Every handler returns an error on empty input; the test covers two of them.")},
		},
		{
			{Text: say("Reading the handler you named."), ToolCalls: read("pkg/f07.go")},
			{Text: say("Comparing with its neighbour."), ToolCalls: read("pkg/f08.go")},
			{Text: say("Finding its callers."), ToolCalls: calls("Grep", map[string]any{"pattern": "Handle07", "output_mode": "content"})},
			{Text: say("Reading the caller."), ToolCalls: read("main.go")},
			{Text: say("Listing the package again."), ToolCalls: calls("LS", map[string]any{"path": "pkg"})},
			{Text: say("Handle07 is only called from main; it can change safely.")},
		},
		{
			{Text: say("Reading two handlers."), ToolCalls: read("pkg/f01.go", "pkg/f02.go")},
			{Text: say("Searching for the shared constant."), ToolCalls: calls("Grep", map[string]any{"pattern": "limit", "output_mode": "content"})},
			{Text: say("Reading the last one."), ToolCalls: read("pkg/f12.go")},
			{Text: say("Looking at the module."), ToolCalls: read("go.mod")},
			{Text: say("Checking the remaining files."), ToolCalls: calls("Glob", map[string]any{"pattern": "*"})},
			{Text: say("Re-reading the test."), ToolCalls: read("main_test.go")},
			{Text: say("Checking one more handler."), ToolCalls: read("pkg/f05.go")},
			{Text: say("The limit is shared by all twelve handlers; raising it is one line in pkg/f01.go.")},
		},
	}
}

// cacheWorkspace writes the small Go project the session reads.
func cacheWorkspace(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("go.mod", "module example.com/handlers\n\ngo 1.24\n")
	var main strings.Builder
	main.WriteString("package main\n\nimport \"example.com/handlers/pkg\"\n\nfunc main() {\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&main, "\tif err := pkg.Handle%02d(input(%d)); err != nil {\n\t\treport(%d, err)\n\t}\n", i, i, i)
	}
	main.WriteString("}\n")
	write("main.go", main.String())
	write("main_test.go", "package main\n\nimport \"testing\"\n\nfunc TestHandle(t *testing.T) {\n\tif input(1) == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n")
	for i := 1; i <= 12; i++ {
		var f strings.Builder
		fmt.Fprintf(&f, "package pkg\n\nimport \"errors\"\n\nconst limit%02d = %d\n\n// Handle%02d handles input number %d.\nfunc Handle%02d(in string) error {\n", i, i*10, i, i, i)
		f.WriteString("\tif in == \"\" {\n\t\treturn errors.New(\"empty input\")\n\t}\n")
		for j := range 12 {
			fmt.Fprintf(&f, "\tstep%02d(in, limit%02d+%d) // step %d of the handler\n", j, i, j, j)
		}
		f.WriteString("\treturn nil\n}\n")
		write(fmt.Sprintf("pkg/f%02d.go", i), f.String())
	}
	return dir
}

// runCacheSession plays the benchmark session through the agent, the real
// Anthropic client and nova's real system prompt and tools, against the
// cache model, and returns what the cache did for each request.
func runCacheSession(tb testing.TB, cache *llmtest.Cache) []llmtest.CacheUsage {
	tb.Helper()
	tb.Setenv("NOVA_HOME", tb.TempDir())
	tb.Setenv("HOME", tb.TempDir())
	script := cacheScript()
	var turns []llmtest.Turn
	for _, run := range script {
		turns = append(turns, run...)
	}
	srv := llmtest.New(turns...)
	defer srv.Close()
	srv.UseCache(cache)

	dir := cacheWorkspace(tb)
	reg := tools.NewRegistry()
	for _, t := range tools.Builtin() {
		if err := reg.Register(t); err != nil {
			tb.Fatal(err)
		}
	}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: dir, Home: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	env := tools.NewEnv(dir)
	env.SpillDir = tb.TempDir()
	defer env.Close()
	ctx := context.Background()
	a := agent.New(agent.Config{
		Client: anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "sk-test"}),
		Model:  "claude-sonnet-4-5", MaxTokens: 8192, ContextWindow: 200_000,
		System: agent.SystemPrompt(),
		Context: func(context.Context) string {
			return agent.EnvironmentContext(ctx, dir, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		},
		Pipeline: &tools.Pipeline{Registry: reg, Checker: checker}, Env: env,
	})
	prompts := []string{"How is this project laid out?", "What do the handlers have in common?", "Can Handle07 change safely?", "Where is the limit set?"}
	for i, p := range prompts {
		var done *agent.Done
		for ev := range a.Run(ctx, llm.UserText(p)) {
			if ev.Type == agent.EventToolResult && ev.Result.IsError {
				tb.Errorf("prompt %d: %s failed: %s", i+1, ev.Result.Name, ev.Result.Output)
			}
			if ev.Type == agent.EventDone {
				done = ev.Done
			}
		}
		if done == nil || done.Subtype != agent.SubtypeSuccess || done.NumTurns != len(script[i]) {
			tb.Fatalf("prompt %d: %+v", i+1, done)
		}
	}
	u := cache.Usage()
	if len(u) != cacheRequests {
		tb.Fatalf("the cache saw %d requests, want %d", len(u), cacheRequests)
	}
	return u
}

// readShare is the part of the input tokens of requests from (1-based) on
// that was read from the cache.
func readShare(u []llmtest.CacheUsage, from int) float64 {
	var read, total int
	for _, x := range u[from-1:] {
		read += x.CacheReadTokens
		total += x.Total()
	}
	return float64(read) / float64(total)
}

// TestCacheSessionReadsPreviousRequests holds nova to its prompt-cache
// target on the benchmark session: every request reads from the cache all
// that the previous one sent (the one after the 12-call turn included),
// and from request 5 on at least 90 % of the input tokens are cache reads.
// It holds under the documented cache and under a stricter one that reads
// only at this request's own breakpoints, with no lookback to lean on.
func TestCacheSessionReadsPreviousRequests(t *testing.T) {
	for _, m := range []struct {
		name     string
		lookback int
	}{{"documented", 0}, {"exact breakpoints", 1}} {
		t.Run(m.name, func(t *testing.T) {
			u := runCacheSession(t, &llmtest.Cache{Lookback: m.lookback})
			for i := 1; i < len(u); i++ {
				if want := u[i-1].Total() - 3; u[i].CacheReadTokens < want {
					t.Errorf("request %d read %d tokens (%.0f%% of %d); want all the %d that request %d sent",
						i+1, u[i].CacheReadTokens, 100*u[i].ReadShare(), u[i].Total(), want, i)
				}
			}
			if share := readShare(u, cacheFrom); share < 0.90 {
				t.Errorf("from request %d on %.1f%% of input tokens were read from the cache, want at least 90%%", cacheFrom, 100*share)
			}
			if u[0].CacheWriteTokens < 4000 {
				t.Errorf("the first request wrote %d tokens; the system prompt and tools alone are more", u[0].CacheWriteTokens)
			}
		})
	}
}

// BenchmarkPromptCacheSession reports the cache-read share of the 25-request
// session, against the documented cache (20-block lookback) and against a
// stricter one that credits a read only at a breakpoint of the request.
// The target is read-share-from-5 ≥ 0.90.
func BenchmarkPromptCacheSession(b *testing.B) {
	for _, m := range []struct {
		name     string
		lookback int
	}{{"documented", 0}, {"exact-breakpoints", 1}} {
		b.Run(m.name, func(b *testing.B) {
			var u []llmtest.CacheUsage
			for b.Loop() {
				u = runCacheSession(b, &llmtest.Cache{Lookback: m.lookback})
			}
			worst, kept := 1.0, 1.0
			for i, x := range u[cacheFrom-1:] {
				worst = min(worst, x.ReadShare())
				// How much of what the request before sent was read again.
				kept = min(kept, float64(x.CacheReadTokens)/float64(u[cacheFrom-2+i].Total()-3))
			}
			b.ReportMetric(u[1].ReadShare(), "read-share-req2")
			b.ReportMetric(u[len(u)-1].ReadShare(), "read-share-req25")
			b.ReportMetric(readShare(u, 1), "read-share-session")
			b.ReportMetric(readShare(u, cacheFrom), "read-share-from-5")
			b.ReportMetric(worst, "min-read-share-from-5")
			b.ReportMetric(kept, "min-previous-read-from-5")
			b.ReportMetric(float64(u[0].CacheWriteTokens), "prefix-tokens-req1")
		})
	}
}
