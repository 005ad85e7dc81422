package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// Tool search: when the MCP servers' tool definitions would take too much
// of the context, they are deferred (llm.ToolSpec.Deferred) and the model
// is offered ToolSearch, Claude Code's tool of that name, which finds them
// by name or keyword and loads the ones it needs. A deferred tool stays in
// the tool list from the moment it is registered, so on Anthropic the
// list, and the cached prompt prefix, do not change when a tool loads.

// SearchDefer says when MCP tools are deferred.
type SearchDefer int

// The three answers of ENABLE_TOOL_SEARCH.
const (
	// SearchOff never defers: every MCP tool is sent in full.
	SearchOff SearchDefer = iota
	// SearchAuto defers every MCP tool once their definitions would take
	// more than SearchMode.Percent of the context window.
	SearchAuto
	// SearchAlways defers every MCP tool from the start.
	SearchAlways
)

// DefaultSearchPercent is auto's threshold when none is given: Claude
// Code's 10 % of the context window.
const DefaultSearchPercent = 10

// ToolSearchName is the search tool's name, Claude Code's.
const ToolSearchName = "ToolSearch"

// defaultSearchResults is how many tools a keyword search loads when
// max_results is not given, Claude Code's default.
const defaultSearchResults = 5

// SearchMode is when a session's MCP tools are deferred behind ToolSearch.
// The zero value never defers.
type SearchMode struct {
	Defer SearchDefer
	// Percent is auto's share of the context window, 0 to 100.
	Percent int
}

// ParseSearchMode reads a value of ENABLE_TOOL_SEARCH (or of the
// enableToolSearch setting) as Claude Code does: "true" defers always,
// "false" never, "auto" at 10 % of the context window, "auto:N" at N %.
func ParseSearchMode(v string) (SearchMode, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "true", "1":
		return SearchMode{Defer: SearchAlways}, nil
	case "false", "0":
		return SearchMode{}, nil
	case "auto":
		return SearchMode{Defer: SearchAuto, Percent: DefaultSearchPercent}, nil
	}
	if n, ok := strings.CutPrefix(v, "auto:"); ok {
		p, err := strconv.Atoi(n)
		if err == nil && p >= 0 && p <= 100 {
			return SearchMode{Defer: SearchAuto, Percent: p}, nil
		}
	}
	return SearchMode{}, errors.New("want true, false, auto, or auto:N with N a percentage of the context window (0 to 100)")
}

// ToolSearchMode is a session's SearchMode: ENABLE_TOOL_SEARCH (env) when
// set, else the enableToolSearch setting (read from file), else auto at
// DefaultSearchPercent. The default is off, as in Claude Code, for an
// Anthropic provider reached through another host than Anthropic's own
// (providerType and baseURL): a proxy that does not pass defer_loading and
// tool_reference on would answer every request with a 400. Setting the
// value turns tool search on there too.
func ToolSearchMode(env, setting, file string, providerType llm.ProviderType, baseURL string) (SearchMode, error) {
	if strings.TrimSpace(env) != "" {
		m, err := ParseSearchMode(env)
		if err != nil {
			return m, fmt.Errorf("ENABLE_TOOL_SEARCH=%q: %w", env, err)
		}
		return m, nil
	}
	if strings.TrimSpace(setting) != "" {
		m, err := ParseSearchMode(setting)
		if err != nil {
			return m, fmt.Errorf("enableToolSearch %q in %s: %w", setting, file, err)
		}
		return m, nil
	}
	if providerType == llm.ProviderAnthropic && !anthropicHost(baseURL) {
		return SearchMode{}, nil
	}
	return SearchMode{Defer: SearchAuto, Percent: DefaultSearchPercent}, nil
}

// anthropicHost reports whether baseURL is Anthropic's own API ("" is the
// default, which is).
func anthropicHost(baseURL string) bool {
	if baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.anthropic.com")
}

// deferral applies a session's SearchMode to the MCP tools a Manager
// registers. Once it defers, it defers every MCP tool, those registered
// later too, for the rest of the session: the tool list changes once.
type deferral struct {
	mode   SearchMode
	window int // the context window, in tokens
	reg    *tools.Registry

	mu      sync.Mutex
	on      bool // MCP tools are deferred
	offered bool // ToolSearch is registered
}

func newDeferral(o Options) *deferral {
	return &deferral{mode: o.ToolSearch, window: o.ContextWindow, reg: o.Registry, on: o.ToolSearch.Defer == SearchAlways}
}

// offer registers ToolSearch when the tools are deferred from the start;
// the Manager calls it when it has a server, before any of their tools
// joins, so ToolSearch comes before them in the tool list.
func (d *deferral) offer() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.on {
		d.offerLocked()
	}
}

func (d *deferral) offerLocked() {
	if !d.offered {
		_ = d.reg.Register(NewToolSearch(d.reg))
		d.offered = true
	}
}

// register adds a server's tool to the registry, deferred when tool
// search is on.
func (d *deferral) register(t *Tool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.on {
		return d.reg.RegisterDeferred(t)
	}
	return d.reg.Register(t)
}

// settle is auto mode's decision, taken each time a server has listed its
// tools: once the MCP tools' definitions (their JSON, four bytes a token)
// take more than the mode's share of the context window, every MCP tool is
// deferred and ToolSearch offered, from then on.
func (d *deferral) settle() {
	if d.mode.Defer != SearchAuto || d.window <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.on {
		return
	}
	var names []string
	size := 0
	for _, s := range d.reg.Specs() {
		if !strings.HasPrefix(s.Name, "mcp__") {
			continue
		}
		b, _ := json.Marshal(s)
		size += len(b)
		names = append(names, s.Name)
	}
	if size*100 <= d.window*4*d.mode.Percent {
		return
	}
	d.on = true
	for _, n := range names {
		d.reg.SetDeferred(n, true)
	}
	d.offerLocked()
}

// ToolSearch is Claude Code's ToolSearch: it finds deferred tools by exact
// name (select:a,b) or by keywords in their names and descriptions, and
// loads them, answering with a tool reference for each. It changes
// nothing in the registry: what is loaded is what the conversation's
// references say, so a resumed session loads the same tools.
type ToolSearch struct {
	tools.Input[toolSearchInput]
	reg *tools.Registry
}

type toolSearchInput struct {
	Query      string `json:"query" jsonschema:"Keywords to find deferred tools by, or select:<name>[,<name>...] to load tools by exact name"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"How many tools a keyword search loads at most (default 5)"`
}

// NewToolSearch returns the search tool over the deferred tools of reg.
func NewToolSearch(reg *tools.Registry) *ToolSearch { return &ToolSearch{reg: reg} }

// Name is ToolSearch.
func (*ToolSearch) Name() string { return ToolSearchName }

// Kind is read: it only reads nova's own list of tools, and loading a
// tool runs nothing.
func (*ToolSearch) Kind() permission.Kind { return permission.KindRead }

// Description tells the model how to load tools, and names the deferred
// ones: it has nothing else to search by.
func (s *ToolSearch) Description() string {
	var b strings.Builder
	b.WriteString(`Loads deferred tools. A deferred tool is listed below by name, but its description and input schema are not in your context, and you cannot call it until it is loaded. Load a tool with this tool before you call it:

- "select:<name>" loads one tool by its exact name; "select:<name>,<name>" loads several.
- Keywords ("github pull request") search the deferred tools' names and descriptions and load the best matches, at most max_results (default 5); prefix a word with + to require it ("+slack message").

A loaded tool stays available for the rest of the conversation: call it directly, and do not search for it again.

Deferred tools:
`)
	names := s.reg.DeferredNames()
	if len(names) == 0 {
		b.WriteString("(none yet: MCP servers that are still starting add theirs when they are ready)")
	} else {
		b.WriteString(strings.Join(names, "\n"))
	}
	return b.String()
}

// Run finds the tools and answers with their references.
func (s *ToolSearch) Run(_ context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in toolSearchInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input: %v", err), nil
	}
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return tools.Errorf("query is empty: give keywords, or select:<name> with a name from this tool's description"), nil
	}
	deferred := s.reg.DeferredSpecs()
	var found, notes []string
	if list, ok := cutPrefixFold(query, "select:"); ok {
		found, notes = s.selectNames(list, deferred)
	} else {
		limit := in.MaxResults
		if limit <= 0 {
			limit = defaultSearchResults
		}
		found = searchTools(query, deferred, limit)
	}
	var b strings.Builder
	switch len(found) {
	case 0:
		fmt.Fprintf(&b, "No deferred tool matches %q. The deferred tools are named in ToolSearch's description; select:<name> loads one by name.", query)
	case 1:
		fmt.Fprintf(&b, "Loaded %s: it can be called now.", found[0])
	default:
		fmt.Fprintf(&b, "Loaded %s: they can be called now.", strings.Join(found, ", "))
	}
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	res := tools.Result{Output: b.String()}
	for _, name := range found {
		res.Images = append(res.Images, llm.ToolReference(name))
	}
	return res, nil
}

// selectNames loads the deferred tools list names, each once, and says
// what became of the others.
func (s *ToolSearch) selectNames(list string, deferred []llm.ToolSpec) (found, notes []string) {
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		match := ""
		for _, t := range deferred {
			if t.Name == name {
				match = t.Name
				break
			}
			if match == "" && strings.EqualFold(t.Name, name) {
				match = t.Name
			}
		}
		switch {
		case match != "":
			if !seen[match] {
				seen[match] = true
				found = append(found, match)
			}
		default:
			if _, on, ok := s.reg.Get(name); ok && on {
				notes = append(notes, fmt.Sprintf("%s is not deferred: it is loaded already, call it directly.", name))
			} else {
				notes = append(notes, fmt.Sprintf("There is no tool called %s.", name))
			}
		}
	}
	return found, notes
}

// searchTools ranks the deferred tools against the query's words and
// returns the names of the best limit. A word scores most as the tool's
// whole name, then as a part of its name (mcp__github__create_issue has
// the parts github, create and issue), then inside its name, then in its
// description; a word written +word must match for the tool to count. Ties
// keep the tool list's order.
func searchTools(query string, deferred []llm.ToolSpec, limit int) []string {
	type hit struct {
		name  string
		score int
	}
	var hits []hit
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	for _, t := range deferred {
		name := strings.ToLower(t.Name)
		parts := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
		desc := strings.ToLower(t.Description)
		score, ok := 0, true
		for _, w := range words {
			required := strings.HasPrefix(w, "+")
			w = strings.TrimPrefix(w, "+")
			if w == "" {
				continue
			}
			s := 0
			switch {
			case w == name:
				s = 100
			case hasWord(parts, w):
				s = 10
			case strings.Contains(name, w):
				s = 5
			case strings.Contains(desc, w):
				s = 2
			}
			if required && s == 0 {
				ok = false
				break
			}
			score += s
		}
		if ok && score > 0 {
			hits = append(hits, hit{name: t.Name, score: score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	var out []string
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		out = append(out, h.name)
	}
	return out
}

func hasWord(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cutPrefixFold is strings.CutPrefix ignoring case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
