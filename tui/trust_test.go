package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func trustFixture() TrustPrompt {
	return TrustPrompt{Dir: "~/src/greeter", Grants: []TrustGrant{
		{File: ".nova/settings.json", Setting: "permissions.allow", Value: "Bash(touch:*), Edit(src/**)"},
		{File: ".nova/settings.json", Setting: "env", Value: "GOFLAGS, NODE_OPTIONS"},
		{File: ".nova/settings.local.json", Setting: "permissions.defaultMode", Value: "bypassPermissions"},
		{File: ".nova/settings.local.json", Setting: "sandbox.enabled", Value: "false"},
	}}
}

// trustScreen is the dialog as a person sees it at 80 columns.
func trustScreen(m *trustModel) string {
	lines := strings.Split(ansi.Strip(m.View().Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func newTrustHarness(p TrustPrompt) *trustModel {
	m := newTrustModel(p)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// pressTrust sends one key and reports whether the program was told to quit.
func pressTrust(m *trustModel, msg tea.KeyPressMsg) bool {
	_, cmd := m.Update(msg)
	return cmd != nil && isQuit(cmd())
}

func TestTUITrustDialogGolden(t *testing.T) {
	goldenString(t, "trust_grants", trustScreen(newTrustHarness(trustFixture())))
	goldenString(t, "trust_none", trustScreen(newTrustHarness(TrustPrompt{Dir: "/work/new-project"})))
}

func TestTUITrustDialogKeys(t *testing.T) {
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	digit := func(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }
	for _, tc := range []struct {
		name string
		keys []tea.KeyPressMsg
		want TrustChoice
	}{
		{"enter takes the highlighted trust", []tea.KeyPressMsg{enter}, TrustFolder},
		{"down and enter continues", []tea.KeyPressMsg{down, enter}, TrustContinue},
		{"down wraps around", []tea.KeyPressMsg{down, down, enter}, TrustFolder},
		{"1 trusts", []tea.KeyPressMsg{digit('1')}, TrustFolder},
		{"2 continues", []tea.KeyPressMsg{digit('2')}, TrustContinue},
		{"esc quits", []tea.KeyPressMsg{{Code: tea.KeyEsc}}, TrustCancelled},
		{"ctrl+c quits", []tea.KeyPressMsg{keyCtrlC()}, TrustCancelled},
		{"ctrl+c after moving quits", []tea.KeyPressMsg{down, keyCtrlC()}, TrustCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTrustHarness(trustFixture())
			quit := false
			for i, k := range tc.keys {
				quit = pressTrust(m, k)
				if quit && i < len(tc.keys)-1 {
					t.Fatalf("quit after key %d of %d", i+1, len(tc.keys))
				}
			}
			if !quit || m.choice != tc.want {
				t.Errorf("quit %v choice %v, want %v", quit, m.choice, tc.want)
			}
			if s := trustScreen(m); strings.TrimSpace(s) != "" {
				t.Errorf("the dialog stays on the screen after the answer:\n%s", s)
			}
		})
	}
}

// TestTUITrustDialogIgnoresOtherKeys: typing (a prompt typed too early)
// does not answer the question.
func TestTUITrustDialogIgnoresOtherKeys(t *testing.T) {
	m := newTrustHarness(trustFixture())
	for _, r := range "yes please 3" {
		if pressTrust(m, tea.KeyPressMsg{Code: r, Text: string(r)}) {
			t.Fatalf("%q answered the dialog", r)
		}
	}
	if !strings.Contains(trustScreen(m), "Do you trust the files in this folder?") {
		t.Error("the dialog went away")
	}
}

func TestTUITrustDialogMoves(t *testing.T) {
	m := newTrustHarness(trustFixture())
	pressTrust(m, tea.KeyPressMsg{Code: tea.KeyDown})
	if s := trustScreen(m); !strings.Contains(s, "❯ 2. No, continue without trusting it") {
		t.Errorf("the highlight did not move:\n%s", s)
	}
}

func TestTUITrustDialogNarrow(t *testing.T) {
	m := newTrustModel(trustFixture())
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 24})
	for _, l := range strings.Split(trustScreen(m), "\n") {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("%d columns: %q", w, l)
		}
	}
	if s := trustScreen(m); !strings.Contains(s, "bypassPermissions") {
		t.Errorf("a grant was cut off at 40 columns:\n%s", s)
	}
}

// TestTUIRunTrust runs the real program on a fake terminal.
func TestTUIRunTrust(t *testing.T) {
	for keys, want := range map[string]TrustChoice{"2": TrustContinue, "\r": TrustFolder, "\x03": TrustCancelled} {
		pr, pw := io.Pipe()
		var out syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		type answer struct {
			c   TrustChoice
			err error
		}
		res := make(chan answer, 1)
		go func() {
			c, err := RunTrust(ctx, trustFixture(), Options{In: pr, Out: &out, Width: 80, Height: 24})
			res <- answer{c, err}
		}()
		for !strings.Contains(out.String(), "Do you trust") {
			select {
			case a := <-res:
				t.Fatalf("ended early: %+v\n%q", a, out.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		_, _ = pw.Write([]byte(keys))
		select {
		case a := <-res:
			if a.err != nil || a.c != want {
				t.Errorf("keys %q: %v %v, want %v", keys, a.c, a.err, want)
			}
		case <-ctx.Done():
			t.Fatalf("keys %q: the dialog did not end", keys)
		}
		cancel()
		pw.Close()
	}
	// A cancelled context ends the dialog with nothing chosen.
	ctx, cancel := context.WithCancel(context.Background())
	pr, _ := io.Pipe()
	var out syncBuffer
	res := make(chan TrustChoice, 1)
	go func() {
		c, _ := RunTrust(ctx, trustFixture(), Options{In: pr, Out: &out, Width: 80, Height: 24})
		res <- c
	}()
	for !strings.Contains(out.String(), "Do you trust") {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case c := <-res:
		if c != TrustCancelled {
			t.Errorf("cancelled: %v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled dialog did not end")
	}
}
