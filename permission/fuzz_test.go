package permission

import (
	"context"
	"strings"
	"testing"
)

// FuzzShellAnalysis feeds arbitrary command lines through the shell
// analysis and the whole Bash check (without Check's recover, so a panic
// fails the test) and holds the invariants every decision must keep.
func FuzzShellAnalysis(f *testing.F) {
	for _, s := range []string{"ls", "rm -rf /", "bash -c 'eval \"$(curl x)\"'", "find . -exec sh -c '{}' \\;", ":(){ :|:& };:", "echo $'\\x72m'", "cd /tmp && ls > a"} {
		f.Add(s)
	}
	c, err := NewChecker(Config{Workspace: "/work/ws", Home: "/home/u", Rules: Rules{Allow: []string{"Bash(npm run test:*)"}, Deny: []string{"Read(./secrets/**)"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := analyzeShell(shellInput{src: cmd, cwd: "/work/ws", home: "/home/u"})
		d := c.checkBash(Request{Tool: "Bash", Kind: KindExec, Command: cmd, Workdir: "/work/ws"})
		switch d.Behavior {
		case Allow, Ask, Deny:
		default:
			t.Fatalf("%q: behaviour %q", cmd, d.Behavior)
		}
		if d.Layer == "" || d.Reason == "" {
			t.Fatalf("%q: decision without layer or reason: %+v", cmd, d)
		}
		if d.Layer == LayerDangerous && len(d.Suggestions) > 0 {
			t.Fatalf("%q: dangerous decision suggests %v", cmd, d.Suggestions)
		}
		if a.parseErr != nil && d.Behavior == Allow {
			t.Fatalf("%q: unparseable command allowed", cmd)
		}
		// Whatever follows it, a plain recursive deletion of / is never allowed.
		bad := "rm -rf /\n" + cmd
		if d := c.checkBash(Request{Tool: "Bash", Command: bad, Workdir: "/work/ws"}); d.Behavior == Allow {
			t.Fatalf("%q: allowed", bad)
		}
	})
}

// FuzzParseRule checks that any rule text parses or fails cleanly, and
// that a parsed rule matches without panicking and parses again the same.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(npm run test:*)", "Read(./secrets/**)", "Edit(src/**)", "WebFetch(domain:example.com)", "mcp__s__t", "Read(~/x)", "Read(//etc/*)", "Bash(git * main)"} {
		f.Add(s, "npm run test -x", "/p/secrets/a")
	}
	f.Fuzz(func(t *testing.T, rule, text, path string) {
		r, err := ParseRule(rule)
		if err != nil {
			return
		}
		again, err := ParseRule(r.Raw)
		if err != nil || again.Tool != r.Tool || again.Spec != r.Spec {
			t.Fatalf("%q parsed as %+v, then %+v (%v)", rule, r, again, err)
		}
		r.Base = "/p"
		r.matchBash(text)
		r.matchPath(path, "/home/u")
		r.matchDomain(text)
		r.covers(Request{Tool: text, Kind: KindEdit}, []access{{path: path, write: true}})
		SplitToolList(rule + "," + text)
	})
}

// FuzzSedScript checks the sed script reader never panics and never calls
// a script with a w command safe.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1,3p", "s/a/b/w x", "y/ab/cd/", "/x/{p;d}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		sc, ok := parseSedScript(script)
		if ok && (strings.HasPrefix(script, "w ") && len(sc.writes) == 0 || strings.HasPrefix(script, "e ") && !sc.exec) {
			t.Fatalf("%q: %+v", script, sc)
		}
	})
}

// TestCheckNeverPanics makes sure Check turns an internal failure into a
// question rather than a crash or an allow.
func TestCheckNeverPanics(t *testing.T) {
	c := newTestChecker(t, Config{})
	for _, cmd := range []string{"", " ", "\x00", "$(", "${", "<<EOF", "a=(", strings.Repeat("bash -c '", 50)} {
		d := c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: cmd})
		if d.Behavior == "" {
			t.Errorf("%q: empty decision", cmd)
		}
	}
}
