package permission

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// corpusConfig builds the Checker a corpus row names in its setup column.
func corpusConfig(t *testing.T, setup string) Config {
	t.Helper()
	cfg := Config{Workspace: "/work/ws", Home: "/home/u"}
	for _, part := range strings.Split(setup, "+") {
		switch part {
		case "-":
		case "dev":
			cfg.Rules = Rules{
				Allow: []string{"Bash(npm run test:*)", "Bash(go test:*)", "Bash(git commit:*)", "Bash(make)", "Read(//etc/hosts)", "Edit(src/**)"},
				Ask:   []string{"Bash(git push:*)"},
				Deny:  []string{"Bash(curl:*)", "Read(./secrets/**)", "Bash(rm -rf build)"},
			}
		case "bashall":
			cfg.Rules = Rules{Allow: []string{"Bash"}}
		case "adddir":
			cfg.AddDirs = []string{"/work/other"}
		case "plan", "acceptEdits", "bypassPermissions":
			cfg.Mode = Mode(part)
		case "sandbox":
			cfg.SandboxAutoAllow = true // the request says Sandboxed
		case "sandboxed":
			// the request says Sandboxed; autoAllow stays off
		case "nosandbox":
			// the request says SandboxUnavailable
		default:
			// allow:RULE, ask:RULE, deny:RULE add one rule.
			list, rule, ok := strings.Cut(part, ":")
			switch {
			case ok && list == "allow":
				cfg.Rules.Allow = append(cfg.Rules.Allow, rule)
			case ok && list == "ask":
				cfg.Rules.Ask = append(cfg.Rules.Ask, rule)
			case ok && list == "deny":
				cfg.Rules.Deny = append(cfg.Rules.Deny, rule)
			default:
				t.Fatalf("unknown setup %q", part)
			}
		}
	}
	return cfg
}

type corpusRow struct {
	line                              int
	command, want, layer, setup, note string
}

func readCorpus(t *testing.T) []corpusRow {
	t.Helper()
	f, err := os.Open("testdata/commands.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 4 {
			t.Fatalf("commands.tsv:%d: want command, expected, layer, setup[, note]; got %d columns", n, len(cols))
		}
		cmd := cols[0]
		if strings.HasPrefix(cmd, `"`) {
			if cmd, err = strconv.Unquote(cmd); err != nil {
				t.Fatalf("commands.tsv:%d: %v", n, err)
			}
		}
		r := corpusRow{line: n, command: cmd, want: cols[1], layer: cols[2], setup: cols[3]}
		if len(cols) > 4 {
			r.note = cols[4]
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCorpus runs every row of testdata/commands.tsv: the command, the
// decision it must get and the layer that must make it.
func TestCorpus(t *testing.T) {
	rows := readCorpus(t)
	if len(rows) < 400 {
		t.Fatalf("corpus has %d rows, want at least 150", len(rows))
	}
	for _, r := range rows {
		t.Run(strconv.Itoa(r.line), func(t *testing.T) {
			c, err := NewChecker(corpusConfig(t, r.setup))
			if err != nil {
				t.Fatal(err)
			}
			sandboxed := strings.Contains("+"+r.setup+"+", "+sandbox+") || strings.Contains("+"+r.setup+"+", "+sandboxed+")
			unavailable := strings.Contains("+"+r.setup+"+", "+nosandbox+")
			d := c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: r.command, Workdir: "/work/ws", Sandboxed: sandboxed, SandboxUnavailable: unavailable})
			if string(d.Behavior) != r.want || string(d.Layer) != r.layer {
				t.Errorf("commands.tsv:%d %q [%s]: got %s/%s (%s), want %s/%s %s", r.line, r.command, r.setup, d.Behavior, d.Layer, d.Reason, r.want, r.layer, r.note)
			}
			if (d.Layer == LayerDangerous || d.Layer == LayerPath && d.Behavior != Ask) && len(d.Suggestions) > 0 {
				t.Errorf("commands.tsv:%d: %s decision suggests rules %v", r.line, d.Layer, d.Suggestions)
			}
		})
	}
}
