package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/memory"
)

// brokenImports writes a NOVACODE.md whose @imports go wrong in the three
// ways nova reports: a file that is not there, a cycle and a chain deeper
// than the import depth limit. It returns what each warning says.
func brokenImports(e *e2e) []string {
	e.write("NOVACODE.md", "Project rules: see @missing-rules.md, @style.md and @deep1.md.\n")
	e.write("style.md", "Tabs. Also read @NOVACODE.md.\n")
	for i := 1; i <= memory.MaxImportDepth+1; i++ {
		e.write(fmt.Sprintf("deep%d.md", i), fmt.Sprintf("level %d, then @deep%d.md\n", i, i+1))
	}
	return []string{
		"import @missing-rules.md not found",
		"import @NOVACODE.md not followed: it would create a cycle",
		fmt.Sprintf("imports are followed at most %d levels deep", memory.MaxImportDepth),
	}
}

func TestImportWarningsInPrintMode(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Fine."})
	wants := brokenImports(e)
	r := e.run("", "-p", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range wants {
		if n := strings.Count(r.stderr, want); n != 1 {
			t.Errorf("stderr tells %q %d times, want once:\n%s", want, n, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "nova: warning: instruction files: "+e.ws+"/NOVACODE.md: import @missing-rules.md not found") {
		t.Errorf("the warning does not say which file:\n%s", r.stderr)
	}
	if r.stdout != "Fine.\n" {
		t.Errorf("stdout = %q: warnings belong on stderr", r.stdout)
	}
	// The files that could be read are still what the model gets.
	if body := string(e.srv.Requests()[0].Body); !strings.Contains(body, "Tabs.") || !strings.Contains(body, "level 4") {
		t.Errorf("the readable imports did not reach the model")
	}
}

func TestImportWarningsInDoctor(t *testing.T) {
	e := newE2E(t)
	wants := brokenImports(e)
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Instruction files (6):\n  NOVACODE.md\n  style.md\n  deep1.md\n") {
		t.Errorf("doctor does not list the instruction files:\n%s", r.stdout)
	}
	for _, want := range wants {
		if !strings.Contains(r.stdout, "  warning: ") || !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	// A clean project has no warning.
	e2 := newE2E(t)
	e2.write("NOVACODE.md", "No imports here.\n")
	if r := e2.run("", "doctor", "--no-sandbox"); strings.Contains(r.stdout, "warning:") || !strings.Contains(r.stdout, "Instruction files (1):") {
		t.Errorf("clean doctor:\n%s", r.stdout)
	}
}

func TestImportWarningsInTUI(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Fine, rules read."}, llmtest.Turn{Text: "Rules"})
	brokenImports(e)
	tm := e.startTUI()
	tm.waitFor("Ask nova anything")
	tm.typeText("hello")
	tm.keys("Enter")
	tm.waitFor("Fine, rules read.")
	tm.waitForText("· warning: instruction files: ")
	// The screen may wrap after "@missing-" (where depends on the temp
	// path's length): the words after the hyphen are the import's.
	tm.waitForText("rules.md not found")
	tm.waitForText("imports are followed at most 4 levels deep")
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
}
