package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-dev/nova/sandbox"
)

// TestSandboxedCommandCannotPlantCodeForLaterCommands runs the attack on the
// shell's saved state: a command inside the sandbox replaces the exit trap
// that saves its state and writes, into the state directory (which it can
// write), shell code in place of the snapshot, then the next command runs
// outside the sandbox (dangerouslyDisableSandbox, approved). The planted
// code must not run there; the exported variable it also forged reaches the
// next command only as a value, quoted, for the permission check to judge.
// The control: an export made inside the sandbox does carry over.
func TestSandboxedCommandCannotPlantCodeForLaterCommands(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	env := newShellEnv(t)
	env.ScratchDir = t.TempDir()
	sb, err := sandbox.New(sandbox.Config{Workspace: env.Workdir, Home: t.TempDir(), AddDirs: []string{env.ScratchDir}})
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("the sandbox does not work here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	env.Sandbox = sb
	outside := t.TempDir() // not writable from inside the sandbox
	sentinel := filepath.Join(outside, "planted-ran")

	// Control: state carries over from a sandboxed command to the next.
	res := runBashTool(t, env, map[string]any{"command": "export NOVA_CARRIED=yes"})
	if res.IsError {
		t.Fatalf("export: %s", res.Output)
	}
	res = runBashTool(t, env, map[string]any{"command": "echo carried=$NOVA_CARRIED"})
	if !strings.Contains(res.Output, "carried=yes") {
		t.Fatalf("control: an export did not carry over, so the test proves nothing: %q", res.Output)
	}

	m := shellsOf(env)
	m.mu.Lock()
	dir, next := m.dir, m.seq+1
	m.mu.Unlock()
	if dir == "" {
		t.Fatal("no state directory after two commands")
	}
	// The planted code names touch by its path: nova's restore unsets the
	// exported variables, PATH too, before it applies the snapshot.
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("no touch")
	}
	plant := touch + " " + sentinel + "\n" + `declare -x NOVA_FORGED="$(` + touch + " " + sentinel + `)"` + "\n"
	// The command's own trap replaces nova's: it writes the planted code as
	// its snapshot (and as the older file name), and a complete cwd file so
	// the snapshot is taken.
	attack := "trap " + shellQuote(
		"printf %s "+shellQuote(plant)+" >| "+shellQuote(filepath.Join(dir, "env."+strconv.Itoa(next)))+
			"; printf %s "+shellQuote(plant)+" >| "+shellQuote(filepath.Join(dir, shellEnvFile))+
			"; pwd >| "+shellQuote(filepath.Join(dir, "cwd."+strconv.Itoa(next)))) + " EXIT"
	res = runBashTool(t, env, map[string]any{"command": attack})
	if res.IsError {
		t.Fatalf("attack command: %s", res.Output)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatal("the planted code ran inside the sandbox with write access outside it")
	}

	// The next command leaves the sandbox, as an approved retry would.
	res = runBashTool(t, env, map[string]any{"command": "printf 'forged=%s\\n' \"$NOVA_FORGED\"", "dangerouslyDisableSandbox": true})
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatalf("code a sandboxed command planted in the shell's state ran outside the sandbox: %s", res.Output)
	}
	if want := "forged=$(" + touch + " " + sentinel + ")"; !strings.Contains(res.Output, want) {
		t.Errorf("the forged variable should arrive as its literal value %q: %q", want, res.Output)
	}
	req := (&Bash{}).Permission([]byte(`{"command":"true"}`), env)
	found := false
	for _, kv := range req.ShellEnv {
		found = found || strings.HasPrefix(kv, "NOVA_FORGED=")
	}
	if !found {
		t.Errorf("the permission check is not told of the forged variable: %q", req.ShellEnv)
	}
}
