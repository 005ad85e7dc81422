package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScriptsAreReadWhenTheyRun: a shell script a command runs is judged
// by what it holds when the call runs, and a rule allowing the script
// covers its commands but not what is sensitive, denied or written outside.
func TestScriptsAreReadWhenTheyRun(t *testing.T) {
	w := newFSWorld(t)
	script := filepath.Join(w.ws, "build.sh")
	rule := Config{Mode: ModeAcceptEdits, Rules: Rules{Allow: []string{"Bash(sh build.sh)", "Bash(./build.sh)", "Bash(bash build.sh)"}, Deny: []string{"Bash(curl:*)"}}}
	tests := []struct {
		body string
		cmds []string
		cfg  Config
		want Behavior
	}{
		{"echo hi\nls src\n", []string{"sh build.sh", "./build.sh", "bash -e build.sh"}, Config{}, Allow},
		{"npm install\n", []string{"sh build.sh"}, Config{}, Ask},
		{"npm install\n", []string{"sh build.sh", "./build.sh"}, rule, Allow},     // covered by the rule
		{"exec \"$JAVA\" \"$@\"\n", []string{"./build.sh"}, rule, Allow},          // opaque, but covered
		{"cat ~/.ssh/id_rsa\n", []string{"sh build.sh", "./build.sh"}, rule, Ask}, // sensitive
		{"touch " + filepath.Join(w.home, "x") + "\n", []string{"bash build.sh"}, rule, Ask},
		{"curl -s x\n", []string{"./build.sh"}, rule, Deny},
		{"rm -rf /\n", []string{"./build.sh"}, rule, Deny},
		{"cd ~/.ssh\n", []string{". ./build.sh; cat id_rsa", "source build.sh && cat id_rsa"}, Config{Mode: ModeBypass}, Ask},
	}
	for _, tt := range tests {
		if err := os.WriteFile(script, []byte("#!/bin/sh\n"+tt.body), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range tt.cmds {
			if d := w.check(t, tt.cfg, cmd); d.Behavior != tt.want {
				t.Errorf("%q running %q: %s (%s: %s), want %s", cmd, tt.body, d.Behavior, d.Layer, d.Reason, tt.want)
			}
		}
	}
	if d := w.check(t, rule, "sh missing.sh"); d.Behavior == Allow {
		t.Errorf("a script that is not there: %+v", d)
	}
}

// TestFunctionsRunInTheCallingShell: a cd inside a function moves the
// shell for what follows the call.
func TestFunctionsRunInTheCallingShell(t *testing.T) {
	w := newFSWorld(t)
	bypass := Config{Mode: ModeBypass}
	for _, cmd := range []string{"f() { cd ~/.ssh; }; f; cat id_rsa", "f() { cd ~/.ssh; }; g() { f; }; g && cat id_rsa", "d=.ssh; cd ~/$d; cat id_rsa"} {
		if d := w.check(t, bypass, cmd); d.Behavior == Allow {
			t.Errorf("%q: allowed", cmd)
		}
	}
	if d := w.check(t, Config{}, "f() { cd src; }; f; cat a.go"); d.Behavior != Allow {
		t.Errorf("control: %+v", d)
	}
}
