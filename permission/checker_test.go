package permission

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func newTestChecker(t *testing.T, cfg Config) *Checker {
	t.Helper()
	if cfg.Workspace == "" {
		cfg.Workspace = "/work/ws"
	}
	if cfg.Home == "" {
		cfg.Home = "/home/u"
	}
	c, err := NewChecker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFileTools(t *testing.T) {
	dev := Rules{
		Allow: []string{"Edit(src/**)", "Read(~/notes/**)", "WebFetch(domain:go.dev)", "mcp__git", "Read(//opt/data/**)"},
		Ask:   []string{"Edit(src/generated/**)"},
		Deny:  []string{"Read(./secrets/**)", "Read(.env)", "mcp__shell__exec"},
	}
	read := func(p string) Request { return Request{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: p}}} }
	edit := func(tool, p string) Request {
		return Request{Tool: tool, Kind: KindEdit, Paths: []Access{{Path: p, Write: true}}}
	}
	tests := []struct {
		name  string
		mode  Mode
		rules Rules
		req   Request
		want  Behavior
		layer Layer
		sugg  []string
	}{
		{"read inside", "", Rules{}, read("/work/ws/main.go"), Allow, LayerMode, nil},
		{"read relative", "", Rules{}, read("src/a.go"), Allow, LayerMode, nil},
		{"read escapes with ..", "", Rules{}, read("/work/ws/../other/x"), Ask, LayerPath, []string{"Read(//work/other/**)"}},
		{"read outside", "", Rules{}, read("/etc/hosts"), Ask, LayerPath, []string{"Read(//etc/**)"}},
		{"read ssh key", "", Rules{}, read("~/.ssh/id_ed25519"), Ask, LayerPath, nil},
		{"read ssh key bypass", ModeBypass, Rules{}, read("/home/u/.ssh/id_ed25519"), Ask, LayerPath, nil},
		{"read Claude Code's MCP headers bypass", ModeBypass, Rules{}, read("/home/u/.claude.json"), Ask, LayerPath, nil},
		{"read nova's MCP logins bypass", ModeBypass, Rules{}, read("/home/u/.nova/mcp-auth/api.json"), Ask, LayerPath, nil},
		{"read outside bypass", ModeBypass, Rules{}, read("/etc/hosts"), Allow, LayerMode, nil},
		{"edit asks by default", "", Rules{}, edit("Edit", "/work/ws/src/pkg/a.go"), Ask, LayerMode, []string{"Edit(src/pkg/**)"}},
		{"write root file suggestion", "", Rules{}, edit("Write", "/work/ws/main.go"), Ask, LayerMode, []string{"Edit(./main.go)"}},
		{"edit acceptEdits", ModeAcceptEdits, Rules{}, edit("Edit", "/work/ws/a.go"), Allow, LayerMode, nil},
		{"edit outside acceptEdits", ModeAcceptEdits, Rules{}, edit("Edit", "/tmp/a.go"), Ask, LayerPath, nil},
		{"edit system file", ModeBypass, Rules{}, edit("Write", "/etc/passwd"), Deny, LayerPath, nil},
		{"edit git hook acceptEdits", ModeAcceptEdits, Rules{}, edit("Write", "/work/ws/.git/hooks/pre-commit"), Ask, LayerPath, nil},
		{"edit git config bypass", ModeBypass, Rules{}, edit("Edit", "/work/ws/.git/config"), Ask, LayerPath, nil},
		{"edit bashrc", ModeAcceptEdits, Rules{}, edit("Edit", "/home/u/.bashrc"), Ask, LayerPath, nil},
		{"edit local settings", ModeAcceptEdits, Rules{}, edit("Write", "/work/ws/.nova/settings.local.json"), Ask, LayerPath, nil},
		{"edit user settings", ModeBypass, Rules{}, edit("Write", "/home/u/.nova/settings.json"), Ask, LayerPath, nil},
		{"plan denies edits", ModePlan, Rules{}, edit("Edit", "/work/ws/a.go"), Deny, LayerMode, nil},
		{"plan allows reads", ModePlan, Rules{}, read("/work/ws/a.go"), Allow, LayerMode, nil},
		{"edit rule", "", dev, edit("Edit", "/work/ws/src/a/b.go"), Allow, LayerRule, nil},
		{"edit rule covers Write", "", dev, edit("Write", "/work/ws/src/new.go"), Allow, LayerRule, nil},
		{"ask rule beats allow", ModeAcceptEdits, dev, edit("Edit", "/work/ws/src/generated/x.go"), Ask, LayerRule, nil},
		{"deny read rule", ModeBypass, dev, read("/work/ws/secrets/key.pem"), Deny, LayerRule, nil},
		{"deny bare name anywhere", "", dev, read("/work/ws/sub/.env"), Deny, LayerRule, nil},
		{"deny covers Grep", "", dev, Request{Tool: "Grep", Kind: KindRead, Paths: []Access{{Path: "/work/ws/secrets"}}}, Deny, LayerRule, nil},
		{"home rule", "", dev, read("/home/u/notes/a.md"), Allow, LayerRule, nil},
		{"absolute rule", "", dev, read("/opt/data/x/y.csv"), Allow, LayerRule, nil},
		{"webfetch asks", "", Rules{}, Request{Tool: "WebFetch", Kind: KindFetch, Domain: "example.com"}, Ask, LayerMode, []string{"WebFetch(domain:example.com)"}},
		{"webfetch rule", "", dev, Request{Tool: "WebFetch", Kind: KindFetch, Domain: "go.dev"}, Allow, LayerRule, nil},
		{"webfetch other domain", "", dev, Request{Tool: "WebFetch", Kind: KindFetch, Domain: "evil.dev"}, Ask, LayerMode, nil},
		{"mcp asks", "", Rules{}, Request{Tool: "mcp__db__query", Kind: KindOther}, Ask, LayerMode, []string{"mcp__db__query"}},
		{"mcp server rule", "", dev, Request{Tool: "mcp__git__log", Kind: KindOther}, Allow, LayerRule, nil},
		{"mcp tool deny", ModeBypass, dev, Request{Tool: "mcp__shell__exec", Kind: KindExec}, Deny, LayerRule, nil},
		{"mcp in plan", ModePlan, Rules{}, Request{Tool: "mcp__db__query", Kind: KindOther}, Deny, LayerMode, nil},
		{"other tool", "", Rules{}, Request{Tool: "TodoWrite", Kind: KindOther}, Allow, LayerMode, nil},
		{"bare Write rule inside", "", Rules{Allow: []string{"Write"}}, edit("Write", "/work/ws/a.go"), Allow, LayerRule, nil},
		{"bare Write rule does not open outside", "", Rules{Allow: []string{"Write", "Edit"}}, edit("Write", "/tmp/pwned.txt"), Ask, LayerPath, nil},
		{"bare Read rule does not open outside", "", Rules{Allow: []string{"Read"}}, read("/etc/hosts"), Ask, LayerPath, nil},
		{"bare deny rule applies everywhere", "", Rules{Deny: []string{"Write"}}, edit("Write", "/work/ws/a.go"), Deny, LayerRule, nil},
		// Edit and Read rules follow what a call does to which path, not a
		// list of tool names: a tool nova gained after the rule was written
		// is covered too.
		{"Edit rule covers any tool's writes", "", dev, edit("Frobnicate", "/work/ws/src/a.go"), Allow, LayerRule, nil},
		{"Edit ask covers any tool's writes", ModeBypass, dev, edit("Frobnicate", "/work/ws/src/generated/a.go"), Ask, LayerRule, nil},
		{"Read deny covers any tool's reads", ModeBypass, dev, Request{Tool: "Peek", Kind: KindRead, Paths: []Access{{Path: "/work/ws/secrets/k"}}}, Deny, LayerRule, nil},
		{"Read deny does not cover writes", ModeAcceptEdits, dev, edit("Write", "/work/ws/secrets/k"), Allow, LayerMode, nil},
		{"Edit allow does not cover reads", "", Rules{Allow: []string{"Edit(//etc/**)"}}, read("/etc/hosts"), Ask, LayerPath, nil},
		{"bare Edit deny covers an edit tool with no paths", ModeBypass, Rules{Deny: []string{"Edit"}}, Request{Tool: "ApplyPatch", Kind: KindEdit}, Deny, LayerRule, nil},
		{"bare Read deny leaves tools that read no file", "", Rules{Deny: []string{"Read"}}, Request{Tool: "BashOutput", Kind: KindRead}, Allow, LayerMode, nil},
		{"a rule naming a tool is a path rule for it", ModeBypass, Rules{Deny: []string{"Write(src/**)"}}, edit("Write", "/work/ws/src/a.go"), Deny, LayerRule, nil},
		{"a rule naming a tool leaves other tools", ModeBypass, Rules{Deny: []string{"Write(src/**)"}}, edit("Edit", "/work/ws/src/a.go"), Allow, LayerMode, nil},
		{"a new tool's write suggests an Edit rule", "", Rules{}, edit("Frobnicate", "/work/ws/src/pkg/a.go"), Ask, LayerMode, []string{"Edit(src/pkg/**)"}},
		{"a new tool's outside read suggests a Read rule", "", Rules{}, Request{Tool: "Peek", Kind: KindRead, Paths: []Access{{Path: "/etc/hosts"}}}, Ask, LayerPath, []string{"Read(//etc/**)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestChecker(t, Config{Mode: tt.mode, Rules: tt.rules})
			d := c.Check(context.Background(), tt.req)
			if d.Behavior != tt.want || d.Layer != tt.layer {
				t.Fatalf("got %s/%s (%s), want %s/%s", d.Behavior, d.Layer, d.Reason, tt.want, tt.layer)
			}
			if tt.sugg != nil && !slices.Equal(d.Suggestions, tt.sugg) {
				t.Errorf("suggestions %v, want %v", d.Suggestions, tt.sugg)
			}
			if d.Layer == LayerPath && d.Behavior == Ask && tt.sugg == nil && len(d.Suggestions) > 0 && c.sensitiveAccess(c.newAccess(tt.req.Paths[0].Path, "/work/ws", tt.req.Paths[0].Write)) != "" {
				t.Errorf("sensitive path decision suggests %v", d.Suggestions)
			}
		})
	}
}

func TestSymlinkOutOfWorkspace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(ws, "rc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(ws, "h")); err != nil {
		t.Fatal(err)
	}
	c := newTestChecker(t, Config{Workspace: ws, Home: home, Mode: ModeAcceptEdits})
	for _, req := range []Request{
		{Tool: "Write", Kind: KindEdit, Paths: []Access{{Path: filepath.Join(ws, "rc"), Write: true}}},
		{Tool: "Bash", Kind: KindExec, Command: "echo x > rc"},
		{Tool: "Bash", Kind: KindExec, Command: "echo x > h/.bashrc"},
	} {
		if d := c.Check(context.Background(), req); d.Behavior != Ask || d.Layer != LayerPath {
			t.Errorf("%+v: got %s/%s (%s), want ask/path", req, d.Behavior, d.Layer, d.Reason)
		}
	}
	d := c.Check(context.Background(), Request{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: filepath.Join(ws, "h", "x")}}})
	if d.Behavior != Ask || d.Layer != LayerPath {
		t.Errorf("read through a link out of the workspace: got %s/%s", d.Behavior, d.Layer)
	}
}

func TestBashSuggestions(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"npm run test -- -x", []string{"Bash(npm run test:*)"}},
		{"npm install", []string{"Bash(npm install)"}},
		{"go test ./...", []string{"Bash(go test:*)"}},
		{"make", []string{"Bash(make)"}},
		{"git commit -m fix", []string{"Bash(git commit:*)"}},
		{"git push origin main", []string{"Bash(git push origin main)"}},
		{"rm build/x.o", []string{"Bash(rm build/x.o)"}},
		{"touch a && npm test", []string{"Bash(touch a)", "Bash(npm test)"}},
		{"echo hi > out.txt", []string{"Edit(./out.txt)"}},
		{"cat /etc/passwd", []string{"Read(//etc/**)"}},
		{"sudo apt update", nil},
		{"$EDITOR x", nil},
	}
	c := newTestChecker(t, Config{})
	for _, tt := range tests {
		d := c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: tt.cmd})
		if d.Behavior != Ask || !slices.Equal(d.Suggestions, tt.want) {
			t.Errorf("%q: got %s %v, want ask %v", tt.cmd, d.Behavior, d.Suggestions, tt.want)
		}
	}
}

func TestAllowAlways(t *testing.T) {
	var saved []string
	c := newTestChecker(t, Config{Persist: func(r string) error { saved = append(saved, r); return nil }})
	req := Request{Tool: "Bash", Kind: KindExec, Command: "npm run test -- -x"}
	if d := c.Check(context.Background(), req); d.Behavior != Ask {
		t.Fatalf("before: %s", d.Behavior)
	}
	if err := c.AllowAlways(c.Check(context.Background(), req).Suggestions[0]); err != nil {
		t.Fatal(err)
	}
	if d := c.Check(context.Background(), req); d.Behavior != Allow || d.Layer != LayerRule {
		t.Fatalf("after: %s/%s", d.Behavior, d.Layer)
	}
	if !slices.Equal(saved, []string{"Bash(npm run test:*)"}) {
		t.Errorf("persisted %v", saved)
	}
	if err := c.AllowAlways("Bash("); err == nil {
		t.Error("a broken rule was accepted")
	}
	failing := newTestChecker(t, Config{Persist: func(string) error { return errors.New("disk full") }})
	if err := failing.AllowAlways("Read"); err == nil {
		t.Error("a persist failure was swallowed")
	}
}

func TestModeAndStartup(t *testing.T) {
	c := newTestChecker(t, Config{})
	c.SetMode(ModePlan)
	if c.Mode() != ModePlan {
		t.Fatal("SetMode did not stick")
	}
	if _, err := NewChecker(Config{Mode: "yolo", Workspace: "/w", Home: "/h"}); err == nil {
		t.Error("unknown mode accepted")
	}
	if _, err := NewChecker(Config{Workspace: "/w", Home: "/h", Rules: Rules{Allow: []string{"Bash(x:*:y)"}}}); err == nil {
		t.Error("bad rule accepted")
	}
	// The home is an input: an empty one is refused, never guessed.
	t.Setenv("HOME", "/home/decoy")
	if _, err := NewChecker(Config{Workspace: "/w"}); err == nil || !strings.Contains(err.Error(), "home") {
		t.Errorf("no home: %v, want an error", err)
	}
	tests := []struct {
		mode    Mode
		sandbox bool
		euid    int
		ok      bool
	}{
		{ModeBypass, false, 0, false},
		{ModeBypass, true, 0, true},
		{ModeBypass, false, 1000, true},
		{ModeDefault, false, 0, true},
	}
	for _, tt := range tests {
		if err := CheckStartup(tt.mode, tt.sandbox, tt.euid); (err == nil) != tt.ok {
			t.Errorf("CheckStartup(%s, %v, %d) = %v", tt.mode, tt.sandbox, tt.euid, err)
		}
	}
}

func TestConcurrentChecks(t *testing.T) {
	c := newTestChecker(t, Config{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				_ = c.AllowAlways("Bash(make)")
				c.SetMode(ModeDefault)
			}
			c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: "make && ls"})
		}()
	}
	wg.Wait()
}
