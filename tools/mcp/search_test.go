package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

func TestParseSearchMode(t *testing.T) {
	tests := []struct {
		in   string
		want SearchMode
		bad  bool
	}{
		{in: "true", want: SearchMode{Defer: SearchAlways}},
		{in: " TRUE ", want: SearchMode{Defer: SearchAlways}},
		{in: "1", want: SearchMode{Defer: SearchAlways}},
		{in: "false", want: SearchMode{}},
		{in: "0", want: SearchMode{}},
		{in: "auto", want: SearchMode{Defer: SearchAuto, Percent: 10}},
		{in: "auto:5", want: SearchMode{Defer: SearchAuto, Percent: 5}},
		{in: "auto:0", want: SearchMode{Defer: SearchAuto, Percent: 0}},
		{in: "auto:100", want: SearchMode{Defer: SearchAuto, Percent: 100}},
		{in: "auto:101", bad: true},
		{in: "auto:-1", bad: true},
		{in: "auto:x", bad: true},
		{in: "sometimes", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseSearchMode(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("ParseSearchMode(%q) = %+v, %v; want %+v (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// TestToolSearchMode: the variable wins over the setting, and the default
// is auto except in front of a host that may not be Anthropic's own API.
func TestToolSearchMode(t *testing.T) {
	auto10 := SearchMode{Defer: SearchAuto, Percent: 10}
	tests := []struct {
		name, env, setting, base string
		typ                      llm.ProviderType
		want                     SearchMode
		err                      string
	}{
		{name: "default on Anthropic", typ: llm.ProviderAnthropic, want: auto10},
		{name: "default on Anthropic's host", typ: llm.ProviderAnthropic, base: "https://api.anthropic.com", want: auto10},
		{name: "default behind a proxy is off", typ: llm.ProviderAnthropic, base: "http://127.0.0.1:4000", want: SearchMode{}},
		{name: "env turns it on behind a proxy", typ: llm.ProviderAnthropic, base: "http://127.0.0.1:4000", env: "auto:20", want: SearchMode{Defer: SearchAuto, Percent: 20}},
		{name: "setting turns it on behind a proxy", typ: llm.ProviderAnthropic, base: "http://127.0.0.1:4000", setting: "true", want: SearchMode{Defer: SearchAlways}},
		{name: "default on OpenAI-compatible", typ: llm.ProviderOpenAICompatible, base: "http://127.0.0.1:8000/v1", want: auto10},
		{name: "env wins over the setting", typ: llm.ProviderAnthropic, env: "false", setting: "true", want: SearchMode{}},
		{name: "bad env", typ: llm.ProviderAnthropic, env: "maybe", err: `ENABLE_TOOL_SEARCH="maybe"`},
		{name: "bad setting names its file", typ: llm.ProviderAnthropic, setting: "auto:500", err: `enableToolSearch "auto:500" in /home/me/.nova/settings.json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToolSearchMode(tt.env, tt.setting, "/home/me/.nova/settings.json", tt.typ, tt.base)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// stubTool is a registered tool with a name and a description.
type stubTool struct {
	tools.Input[struct{}]
	name, desc string
}

func (s *stubTool) Name() string        { return s.name }
func (s *stubTool) Description() string { return s.desc }
func (*stubTool) Kind() permission.Kind { return permission.KindRead }
func (*stubTool) Run(context.Context, json.RawMessage, *tools.Env) (tools.Result, error) {
	return tools.Result{Output: "ran"}, nil
}

// searchRegistry is Read (loaded), ToolSearch, and four deferred tools.
func searchRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.Register(&stubTool{name: "Read", desc: "Reads a file"}))
	must(reg.Register(NewToolSearch(reg)))
	for _, s := range []*stubTool{
		{name: "mcp__github__create_issue", desc: "Create an issue in a GitHub repository"},
		{name: "mcp__github__list_pull_requests", desc: "List the pull requests of a repository"},
		{name: "mcp__slack__post_message", desc: "Post a message to a Slack channel"},
		{name: "mcp__notes__search", desc: "Search the notes for an issue or a message"},
	} {
		must(reg.RegisterDeferred(s))
	}
	return reg
}

// runSearch runs ToolSearch through its schema, as the pipeline would.
func runSearch(t *testing.T, reg *tools.Registry, input map[string]any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(input)
	p := &tools.Pipeline{Registry: reg, Checker: allowAll{}}
	o := p.Run(context.Background(), tools.Call{ID: "call_1", Name: ToolSearchName, Input: raw}, tools.NewEnv(t.TempDir()))
	return o.Result
}

func refs(r tools.Result) []string {
	var names []string
	for _, p := range r.Images {
		if p.Type == llm.PartToolReference {
			names = append(names, p.ToolName)
		}
	}
	return names
}

// TestToolSearchFinds: select: loads by exact name, keywords rank by name
// then description, max_results bounds a keyword search, and the answer
// is a tool reference for each tool found plus a short text.
func TestToolSearchFinds(t *testing.T) {
	reg := searchRegistry(t)
	tests := []struct {
		name  string
		input map[string]any
		want  []string
		text  []string // the text says these
	}{
		{name: "select one", input: map[string]any{"query": "select:mcp__slack__post_message"},
			want: []string{"mcp__slack__post_message"}, text: []string{"Loaded mcp__slack__post_message"}},
		{name: "select several, repeated, case-insensitive, with spaces",
			input: map[string]any{"query": "SELECT: mcp__github__create_issue , MCP__NOTES__SEARCH,mcp__github__create_issue"},
			want:  []string{"mcp__github__create_issue", "mcp__notes__search"}},
		{name: "select a loaded tool and a missing one", input: map[string]any{"query": "select:Read,mcp__nope__x"},
			want: nil, text: []string{"Read is not deferred", "no tool called mcp__nope__x", "No deferred tool matches"}},
		{name: "select ignores max_results", input: map[string]any{"query": "select:mcp__github__create_issue,mcp__slack__post_message", "max_results": 1},
			want: []string{"mcp__github__create_issue", "mcp__slack__post_message"}},
		{name: "a name part beats a description", input: map[string]any{"query": "issue"},
			want: []string{"mcp__github__create_issue", "mcp__notes__search"}},
		{name: "words add up", input: map[string]any{"query": "github pull"},
			want: []string{"mcp__github__list_pull_requests", "mcp__github__create_issue"}},
		{name: "required word", input: map[string]any{"query": "+slack message"},
			want: []string{"mcp__slack__post_message"}},
		{name: "ties keep the list's order", input: map[string]any{"query": "repository"},
			want: []string{"mcp__github__create_issue", "mcp__github__list_pull_requests"}},
		{name: "max_results", input: map[string]any{"query": "repository message", "max_results": 2},
			want: []string{"mcp__slack__post_message", "mcp__github__create_issue"}},
		{name: "the whole name", input: map[string]any{"query": "mcp__notes__search"},
			want: []string{"mcp__notes__search"}},
		{name: "only deferred tools are searched", input: map[string]any{"query": "file"},
			want: nil, text: []string{`No deferred tool matches "file"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runSearch(t, reg, tt.input)
			if r.IsError {
				t.Fatalf("error: %s", r.Output)
			}
			if got := refs(r); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("references %v, want %v\n%s", got, tt.want, r.Output)
			}
			for _, s := range tt.text {
				if !strings.Contains(r.Output, s) {
					t.Errorf("text %q does not say %q", r.Output, s)
				}
			}
		})
	}
	if r := runSearch(t, reg, map[string]any{"query": "  "}); !r.IsError {
		t.Errorf("an empty query is an error: %+v", r)
	}
	// A search marks nothing: what is loaded is what the history says.
	if got := reg.DeferredNames(); len(got) != 4 {
		t.Errorf("deferred after the searches: %v", got)
	}
}

// TestToolSearchDescription names the deferred tools, and only those;
// reading the registry from a description does not deadlock Specs.
func TestToolSearchDescription(t *testing.T) {
	reg := searchRegistry(t)
	var desc string
	for _, s := range reg.Specs() {
		if s.Name == ToolSearchName {
			desc = s.Description
			if s.Deferred {
				t.Error("ToolSearch itself must not be deferred")
			}
		}
	}
	for _, n := range []string{"mcp__github__create_issue", "mcp__slack__post_message", "select:"} {
		if !strings.Contains(desc, n) {
			t.Errorf("description does not name %s:\n%s", n, desc)
		}
	}
	if strings.Contains(desc, "Read\n") || strings.HasSuffix(desc, "Read") {
		t.Errorf("description lists a tool that is not deferred:\n%s", desc)
	}
	if d := NewToolSearch(tools.NewRegistry()).Description(); !strings.Contains(d, "none yet") {
		t.Errorf("with nothing deferred: %s", d)
	}
}

// deferredState returns ToolSearch's position in reg's tool list (-1 when
// it is not offered) and how many MCP tools are deferred and loaded.
func deferredState(reg *tools.Registry) (search int, mcpDeferred, mcpLoaded int) {
	search = -1
	for i, s := range reg.Specs() {
		switch {
		case s.Name == ToolSearchName:
			search = i
		case strings.HasPrefix(s.Name, "mcp__") && s.Deferred:
			mcpDeferred++
		case strings.HasPrefix(s.Name, "mcp__"):
			mcpLoaded++
		}
	}
	return search, mcpDeferred, mcpLoaded
}

// TestDeferral connects a real server under each mode: always defers
// every tool of it from the start, with ToolSearch offered before them;
// auto defers only when the tools outgrow their share of the window, and
// then all of them; off never.
func TestDeferral(t *testing.T) {
	n := len(mcptest.ToolNames)
	tests := []struct {
		name     string
		mode     SearchMode
		window   int
		deferred bool
	}{
		{name: "always", mode: SearchMode{Defer: SearchAlways}, window: 200_000, deferred: true},
		{name: "auto, small tools", mode: SearchMode{Defer: SearchAuto, Percent: 10}, window: 200_000},
		{name: "auto, small window", mode: SearchMode{Defer: SearchAuto, Percent: 10}, window: 2_000, deferred: true},
		{name: "auto:0", mode: SearchMode{Defer: SearchAuto, Percent: 0}, window: 200_000, deferred: true},
		{name: "off", mode: SearchMode{}, window: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tools.NewRegistry()
			if err := reg.Register(&stubTool{name: "Read", desc: "Reads a file"}); err != nil {
				t.Fatal(err)
			}
			w := newWorldIn(t, reg, Options{ToolSearch: tt.mode, ContextWindow: tt.window}, stdioServer("t", mcptest.Options{}))
			if tt.mode.Defer == SearchAlways {
				// Offered at start, before any tool of a server: the
				// tool list's head does not wait for the servers.
				if s, _, _ := deferredState(reg); s < 0 {
					t.Error("ToolSearch is not offered at start")
				}
			}
			w.wait(t)
			search, deferred, loaded := deferredState(reg)
			if !tt.deferred {
				if search >= 0 || deferred != 0 || loaded != n {
					t.Fatalf("ToolSearch at %d, %d deferred, %d loaded; want none offered and all %d loaded", search, deferred, loaded, n)
				}
				return
			}
			if search < 0 || deferred != n || loaded != 0 {
				t.Fatalf("ToolSearch at %d, %d deferred, %d loaded; want ToolSearch and all %d deferred", search, deferred, loaded, n)
			}
			if o := w.call(t, "mcp__t__echo", map[string]any{"text": "still runs"}); o.Result.Output != "still runs" {
				t.Errorf("a deferred tool runs when called: %+v", o.Result)
			}
			r := runSearch(t, reg, map[string]any{"query": "select:mcp__t__echo"})
			if got := refs(r); len(got) != 1 || got[0] != "mcp__t__echo" {
				t.Errorf("ToolSearch found %v: %s", got, r.Output)
			}
		})
	}
}

// TestDeferralTipsOver: a second server that takes the MCP tools over
// the threshold defers the first one's tools too, from then on.
func TestDeferralTipsOver(t *testing.T) {
	// One server's tools, measured as auto mode measures them.
	probe := newWorldIn(t, tools.NewRegistry(), Options{}, stdioServer("a", mcptest.Options{}))
	probe.wait(t)
	size := 0
	for _, s := range probe.reg.Specs() {
		if strings.HasPrefix(s.Name, "mcp__") {
			b, _ := json.Marshal(s)
			size += len(b)
		}
	}
	// At 10 %, a window of 3.75 times the bytes holds one server's tools
	// (size/4 tokens <= 0.1 window) and not two.
	reg := tools.NewRegistry()
	w := newWorldIn(t, reg, Options{ToolSearch: SearchMode{Defer: SearchAuto, Percent: 10}, ContextWindow: size * 15 / 4}, stdioServer("a", mcptest.Options{}))
	w.wait(t)
	if s, d, l := deferredState(reg); s >= 0 || d != 0 || l != len(mcptest.ToolNames) {
		t.Fatalf("one server: ToolSearch at %d, %d deferred, %d loaded; want nothing deferred", s, d, l)
	}
	w.m.Add(stdioServer("b", mcptest.Options{}))
	w.wait(t)
	n := 2 * len(mcptest.ToolNames)
	if s, d, l := deferredState(reg); s < 0 || d != n || l != 0 {
		t.Fatalf("after the second server: ToolSearch at %d, %d deferred, %d loaded; want all %d deferred", s, d, l, n)
	}
}

// newWorldIn is newWorld with the registry given, so a test can put
// tools in it before the servers' (nova's built-ins come first).
func newWorldIn(t *testing.T, reg *tools.Registry, o Options, servers ...Server) *world {
	t.Helper()
	w := &world{reg: reg}
	o.Registry = reg
	w.m = NewManager(servers, o)
	w.m.Start()
	t.Cleanup(func() { _ = w.m.Close() })
	w.pipe = &tools.Pipeline{Registry: reg, Checker: allowAll{}}
	w.env = tools.NewEnv(t.TempDir())
	w.env.SpillDir = t.TempDir()
	return w
}
