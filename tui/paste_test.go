package tui

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// TestTUIPasteCRFolds: a terminal sends pasted lines separated by CR; the
// paste folds to one placeholder all the same, and is sent with its lines
// intact ("\n"), whichever separator the terminal used.
func TestTUIPasteCRFolds(t *testing.T) {
	for _, sep := range []string{"\r", "\r\n", "\n"} {
		b := newFake()
		b.runs = [][]agent.Event{{done(agent.SubtypeSuccess)}}
		h := newHarness(t, b)
		var lines []string
		for i := 1; i <= 200; i++ {
			lines = append(lines, "row "+strings.Repeat("x", i%7))
		}
		h.typeText("sort these: ")
		h.send(pasteMsg(strings.Join(lines, sep) + sep))
		if sep == "\r" {
			h.golden("paste_cr_folded")
		}
		h.contains("sort these: [pasted 200 lines]")
		h.press("enter")
		got := b.inputs[0].Parts[len(b.inputs[0].Parts)-1].Text
		if want := "sort these: " + strings.Join(lines, "\n"); strings.TrimRight(got, "\n") != want || strings.Contains(got, "\r") {
			t.Errorf("separator %q: sent %q, want the 200 lines joined by \\n", sep, got)
		}
	}
}

// TestTUISmallPasteCR: a short CR-separated paste goes into the input as
// lines, not as one line with carriage returns in it.
func TestTUISmallPasteCR(t *testing.T) {
	h := newHarness(t, newFake())
	h.send(pasteMsg("one\rtwo\rthree"))
	if v := h.m.in.ta.Value(); v != "one\ntwo\nthree" {
		t.Errorf("input = %q", v)
	}
}
