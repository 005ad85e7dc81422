package permission_test

import (
	"strings"
	"testing"
)

// TestAttackCorpusShape checks the corpus is as large and as cited as
// promised: enough cases and controls, every class present, a source on
// every case.
func TestAttackCorpusShape(t *testing.T) {
	cases, titles, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	controls, perClass := 0, map[int]int{}
	for _, c := range cases {
		if c.control() {
			controls++
		}
		perClass[c.Class]++
	}
	if len(cases) < minCases {
		t.Errorf("the corpus has %d cases, want at least %d", len(cases), minCases)
	}
	if controls < minControl {
		t.Errorf("the corpus has %d positive controls, want at least %d", controls, minControl)
	}
	for cl := 1; cl <= 14; cl++ {
		if perClass[cl] < 10 {
			t.Errorf("class %d (%s) has %d cases, want at least 10", cl, titles[cl], perClass[cl])
		}
	}
	known, err := readKnown(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range cases {
		ids[c.ID] = true
	}
	for id := range known {
		if !ids[id] {
			t.Errorf("known_escapes.txt lists %s, which is no case of the corpus", id)
		}
	}
}

// TestAttackCorpusIsReal runs every attack with a checker that allows
// everything, the sandbox and the search tools' deny filter off: each
// must then trip a sentinel. An attack that cannot escape even so proves
// nothing about the checker, and a sentinel that misses it would hide a
// real escape.
//
// It also runs every attack with a checker that denies everything, the
// user's git commands included: then nothing may escape, so an escape in
// TestAttacks is the attack's and never the set-up's.
//
// It runs the corpus twice, so it runs only with -attacks.real; run it
// after adding cases.
func TestAttackCorpusIsReal(t *testing.T) {
	if !*attacksReal {
		t.Skip("run with -attacks.real: it runs every attack unchecked")
	}
	cases, _, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	var attacks []*attackCase
	sel := newSelector()
	for _, c := range cases {
		if !c.control() && !c.expect().Nondeterministic && sel.within(className(c.Class), c.ID) {
			attacks = append(attacks, c)
		}
	}
	quiet := runAll(h, attacks, runOptions{checker: denyAll{}, postGit: true})
	for _, c := range attacks {
		if o := quiet[c.ID]; o.escaped() {
			t.Errorf("%s (%s) trips a sentinel with every call denied: the set-up, not the attack, escapes: %s", c.ID, c.file, strings.Join(o.escapes, "; "))
		}
	}
	results := runAll(h, attacks, runOptions{checker: allowAll{}, noSandbox: true, noDeniedRead: true})
	for _, c := range attacks {
		o := results[c.ID]
		switch {
		case o.skip != "":
			t.Logf("%s skipped: %s", c.ID, o.skip)
		case o.err != nil:
			t.Errorf("%s: the harness failed: %v", c.ID, o.err)
		case !o.escaped():
			t.Errorf("%s (%s) does not escape even with every call allowed: it is no attack, or a sentinel misses it%s", c.ID, c.file, o.describe())
		}
	}
}

// TestAttackControlsFailUnderDenyAll runs the positive controls against a
// checker that denies everything: every one must then fail, so a checker
// that "fixes" the corpus by refusing all work fails TestAttacks.
func TestAttackControlsFailUnderDenyAll(t *testing.T) {
	cases, _, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	var controls []*attackCase
	for _, c := range cases {
		if c.control() {
			controls = append(controls, c)
		}
	}
	results := runAll(h, controls, runOptions{checker: denyAll{}})
	failed := 0
	for _, c := range controls {
		o := results[c.ID]
		switch {
		case o.skip != "":
			t.Logf("%s skipped: %s", c.ID, o.skip)
		case o.err != nil:
			t.Errorf("%s: the harness failed: %v", c.ID, o.err)
		case len(o.missing) == 0:
			t.Errorf("control %s still shows its effect with every call denied: it does not prove the call ran%s", c.ID, o.describe())
		default:
			failed++
			if !strings.Contains(o.describe(), "deny-all") {
				t.Errorf("control %s failed without meeting the deny-all checker", c.ID)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no control ran")
	}
}
