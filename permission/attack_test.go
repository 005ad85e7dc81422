package permission_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flags of the attack corpus (go test ./permission -run TestAttacks ...).
var (
	attacksReport = flag.Bool("attacks.report", false, "print a table of the attack corpus: class, cases, escaped")
	attacksStrict = flag.Bool("attacks.strict", false, "fail every escape, the known ones included")
	attacksUpdate = flag.Bool("attacks.update-known", false, "rewrite testdata/attacks/known_escapes.txt with the cases that escape now")
	attacksReal   = flag.Bool("attacks.real", false, "also check every attack escapes with nothing checked, and none with everything denied")
)

const (
	corpusDir  = "testdata/attacks"
	knownFile  = "testdata/attacks/known_escapes.txt"
	minCases   = 600
	minControl = 60
)

// TestAttacks runs every case of testdata/attacks for real: a fresh
// workspace and home per case, the agent driven by a scripted model, and
// sentinels read afterwards (files outside the workspace, the secret in
// tool results, connections to listeners, git's hooks and config, and
// what the user's next git commands run). An attack that escapes fails
// unless it is listed in known_escapes.txt, the work queue of the
// checker; a listed attack that no longer escapes fails too, so the list
// only ever shrinks. A positive control fails when its effect is missing.
func TestAttacks(t *testing.T) {
	cases, titles, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	known, err := readKnown(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	sel := newSelector()
	byClass := map[int][]*attackCase{}
	var chosen []*attackCase
	for _, c := range cases {
		if sel.match(className(c.Class), c.ID) {
			chosen = append(chosen, c)
		}
		byClass[c.Class] = append(byClass[c.Class], c)
	}

	// Cases run in a pool wider than -parallel: most of their time is
	// spent waiting on the shells and git they start.
	start := time.Now()
	results := runAll(h, chosen, runOptions{})
	elapsed := time.Since(start)

	classes := make([]int, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	sort.Ints(classes)
	type row struct{ cases, controls, escaped, known int }
	table := map[int]*row{}
	var escapedIDs []string
	for _, cl := range classes {
		table[cl] = &row{}
		t.Run(className(cl), func(t *testing.T) {
			for _, c := range byClass[cl] {
				o, ran := results[c.ID]
				if !ran {
					continue
				}
				r := table[cl]
				r.cases++
				if c.control() {
					r.controls++
				}
				if o.escaped() {
					r.escaped++
					escapedIDs = append(escapedIDs, c.ID)
				}
				if known[c.ID] != "" {
					r.known++
				}
				t.Run(c.ID, func(t *testing.T) { reportCase(t, c, o, known[c.ID] != "") })
			}
		})
	}

	if *attacksUpdate {
		if err := writeKnown(knownFile, cases, results, known); err != nil {
			t.Fatal(err)
		}
	}
	if *attacksReport {
		var b strings.Builder
		fmt.Fprintf(&b, "\nattack corpus: %d cases run in %s\n", len(chosen), elapsed.Round(time.Millisecond))
		fmt.Fprintf(&b, "%-6s %-58s %6s %9s %8s\n", "class", "title", "cases", "controls", "escaped")
		total := row{}
		for _, cl := range classes {
			r := table[cl]
			if r.cases == 0 {
				continue
			}
			fmt.Fprintf(&b, "%-6d %-58s %6d %9d %8d\n", cl, titles[cl], r.cases, r.controls, r.escaped)
			total.cases += r.cases
			total.controls += r.controls
			total.escaped += r.escaped
		}
		fmt.Fprintf(&b, "%-6s %-58s %6d %9d %8d\n", "total", "", total.cases, total.controls, total.escaped)
		slow := append([]*attackCase(nil), chosen...)
		sort.Slice(slow, func(i, j int) bool { return results[slow[i].ID].dur > results[slow[j].ID].dur })
		fmt.Fprintf(&b, "slowest:")
		for _, c := range slow[:min(8, len(slow))] {
			fmt.Fprintf(&b, " %s %s", c.ID, results[c.ID].dur.Round(time.Millisecond))
		}
		fmt.Fprintln(&b)
		if len(escapedIDs) > 0 {
			fmt.Fprintf(&b, "escaped: %s\n", strings.Join(escapedIDs, " "))
		}
		fmt.Print(b.String())
	}
}

// reportCase turns one outcome into the subtest's verdict.
func reportCase(t *testing.T, c *attackCase, o outcome, isKnown bool) {
	t.Helper()
	switch {
	case o.skip != "":
		t.Skip(o.skip)
	case o.err != nil:
		t.Fatalf("%s: the harness failed: %v", c.file, o.err)
	}
	where := fmt.Sprintf("%s [%s] %s\n  source: %s\n  note: %s", c.file, c.ID, marshalInput(c), c.Source, c.Note)
	if len(o.clutter) > 0 {
		t.Errorf("the sandbox left %s in the workspace (its placeholders must go with the Sandbox)\n  %s", strings.Join(o.clutter, ", "), where)
	}
	if c.control() {
		if len(o.missing) > 0 {
			t.Errorf("positive control did not run: %s\n  %s%s", strings.Join(o.missing, "; "), where, o.describe())
		}
		if o.escaped() {
			t.Errorf("positive control escaped: %s\n  %s%s", strings.Join(o.escapes, "; "), where, o.describe())
		}
		return
	}
	e := c.expect()
	switch {
	case o.escaped() && *attacksUpdate:
		t.Skipf("escapes; recorded in known_escapes.txt: %s", strings.Join(o.escapes, "; "))
	case o.escaped() && isKnown && !*attacksStrict:
		t.Skipf("KNOWN ESCAPE (testdata/attacks/known_escapes.txt): %s\n  %s%s", strings.Join(o.escapes, "; "), where, o.describe())
	case o.escaped():
		t.Errorf("ESCAPED: %s\n  %s%s", strings.Join(o.escapes, "; "), where, o.describe())
	case isKnown && !e.Nondeterministic && !*attacksUpdate:
		t.Errorf("%s is listed in known_escapes.txt but no longer escapes: remove it from the list\n  %s%s", c.ID, where, o.describe())
	default:
		t.Logf("held (%s)%s", o.dur.Round(time.Millisecond), o.describe())
	}
}

// runAll runs cases concurrently and returns their outcomes by id.
func runAll(h *harness, cases []*attackCase, opt runOptions) map[string]outcome {
	workers := min(16, 4*runtime.GOMAXPROCS(0))
	var (
		mu  sync.Mutex
		out = map[string]outcome{}
		wg  sync.WaitGroup
		ch  = make(chan *attackCase)
	)
	// Races keep a goroutine swapping a directory for as long as they run:
	// one at a time, so they do not starve the rest of the pool.
	race := make(chan struct{}, 1)
	for range workers {
		wg.Go(func() {
			for c := range ch {
				if c.setup().Race != nil {
					race <- struct{}{}
				}
				o := h.runCase(c, opt)
				if c.setup().Race != nil {
					<-race
				}
				mu.Lock()
				out[c.ID] = o
				mu.Unlock()
			}
		})
	}
	for _, c := range cases {
		ch <- c
	}
	close(ch)
	wg.Wait()
	return out
}

func className(n int) string { return fmt.Sprintf("class%02d", n) }

// selector applies -test.run to the class and case levels before the
// cases run, so a narrowed run does not pay for the whole corpus.
type selector struct{ levels []*regexp.Regexp }

func newSelector() selector {
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return selector{}
	}
	var s selector
	for _, part := range strings.Split(f.Value.String(), "/") {
		re, err := regexp.Compile(part)
		if err != nil {
			return selector{}
		}
		s.levels = append(s.levels, re)
	}
	return s
}

// within reports whether class/id passes the levels of -test.run below
// the test's own name (TestAttackCorpusIsReal/class18 runs class 18).
func (s selector) within(class, id string) bool {
	if len(s.levels) < 2 {
		return true
	}
	return selector{levels: append([]*regexp.Regexp{regexp.MustCompile("")}, s.levels[1:]...)}.match(class, id)
}

// match reports whether TestAttacks/class/id passes -test.run.
func (s selector) match(class, id string) bool {
	names := []string{"TestAttacks", class, id}
	for i, re := range s.levels {
		if i >= len(names) {
			break
		}
		if !re.MatchString(names[i]) {
			return false
		}
	}
	return true
}

// readKnown reads the ids of known escapes: one a line, # comments.
func readKnown(path string) (map[string]string, error) {
	known := map[string]string{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return known, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, why, _ := strings.Cut(line, "#")
		known[strings.TrimSpace(id)] = strings.TrimSpace(why) + " "
	}
	return known, sc.Err()
}

// writeKnown rewrites the known-escapes list from this run's outcomes;
// cases this run left out keep their entries.
func writeKnown(path string, cases []*attackCase, results map[string]outcome, known map[string]string) error {
	var b strings.Builder
	b.WriteString("# Attacks of testdata/attacks that get through the checker alone: each is a\n")
	b.WriteString("# limit docs/permissions.md states (\"What is promised, and what is not\"),\n")
	b.WriteString("# and each has a twin in the corpus that must hold: under the sandbox, the\n")
	b.WriteString("# floor under the checker, or with the rule that fits. TestAttacks skips these (run it\n")
	b.WriteString("# with -attacks.strict to fail them) and fails a listed case that no longer\n")
	b.WriteString("# escapes. Anything new that escapes fails the test. Regenerate with:\n")
	b.WriteString("# go test ./permission -run TestAttacks -attacks.update-known\n")
	class := 0
	for _, c := range cases {
		o, ran := results[c.ID]
		why := ""
		switch {
		case c.control():
		case c.expect().Nondeterministic && (ran && o.escaped() || known[c.ID] != ""):
			// A race escapes on some runs only: keep it listed until fixed.
			why = strings.TrimSpace(known[c.ID])
			if ran && o.escaped() {
				why = firstLine(o.escapes[0], 90)
			}
			if why == "" {
				why = "race"
			}
		case ran && o.escaped():
			why = firstLine(o.escapes[0], 90)
		case !ran && known[c.ID] != "":
			why = strings.TrimSpace(known[c.ID])
		}
		if why == "" {
			continue
		}
		if c.Class != class {
			class = c.Class
			fmt.Fprintf(&b, "\n# class %d: %s\n", c.Class, c.title)
		}
		fmt.Fprintf(&b, "%s  # %s\n", c.ID, why)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
