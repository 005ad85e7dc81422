//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools/display"
)

// newShellEnv returns an Env in a temp dir whose shells are closed when
// the test ends.
func newShellEnv(t *testing.T) *Env {
	t.Helper()
	env := NewEnv(t.TempDir())
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Errorf("env.Close: %v", err)
		}
	})
	return env
}

// shellCall runs tool with input (a Go value marshalled to JSON).
func shellCall(t *testing.T, ctx context.Context, tool Tool, env *Env, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(ctx, raw, env)
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Name(), raw, err)
	}
	if _, err := json.Marshal(res.Display); err != nil {
		t.Fatalf("display does not marshal: %v", err)
	}
	return res
}

func runBashTool(t *testing.T, env *Env, input map[string]any) Result {
	t.Helper()
	return shellCall(t, context.Background(), &Bash{}, env, input)
}

// pidIn returns the number after name= in out.
func pidIn(t *testing.T, out, name string) int {
	t.Helper()
	m := regexp.MustCompile(name + `=(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s= in output %q", name, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// assertGroupGone waits until no process of group pgid is left. A member
// that is a zombie counts as gone: it has exited, and in a container whose
// init does not reap, an orphan stays a zombie whoever killed it.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if runtime.GOOS == "linux" {
			if live := liveMembersForTest(pgid); len(live) == 0 {
				t.Logf("group %d: only unreaped zombies left", pgid)
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("process group %d still has live processes %v", pgid, live)
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("process group %d still exists: kill(-pgid, 0) = %v", pgid, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func liveMembersForTest(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var live []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			live = append(live, e.Name()+":"+f[0])
		}
	}
	return live
}

func TestBashStateCarriesOver(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	sub := filepath.Join(env.Workdir, "sub dir")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		command string
		want    string
	}{
		{`cd "sub dir" && export NOVA_T1='a b' && export NOVA_GONE=1 && NOT_EXPORTED=x`, "(no output)"},
		{`unset NOVA_GONE; export NOVA_T2="$NOVA_T1!"`, "(no output)"},
		{`pwd; echo "$NOVA_T1|$NOVA_T2|${NOVA_GONE-unset}|${NOT_EXPORTED-unset}"`, sub + "\na b|a b!|unset|unset"},
		{`cd .. && cd - >/dev/null && pwd`, sub},
	}
	for _, s := range steps {
		res := runBashTool(t, env, map[string]any{"command": s.command})
		if res.IsError || res.Output != s.want {
			t.Fatalf("%s: got %q (error %v), want %q", s.command, res.Output, res.IsError, s.want)
		}
		if d := displayOf(t, res, display.KindCommand).Command; d.Cwd != sub {
			t.Errorf("%s: display cwd %q, want %q", s.command, d.Cwd, sub)
		}
	}
	req := (&Bash{}).Permission(json.RawMessage(`{"command":"ls"}`), env)
	if req.Tool != "Bash" || req.Kind != "exec" || req.Command != "ls" || req.Workdir != sub {
		t.Errorf("permission request %+v", req)
	}
}

func TestBashOutputAndExitCode(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	tests := []struct {
		name, command, want string
		code                int
	}{
		{"ok", "echo hi", "hi", 0},
		{"no output", "true", "(no output)", 0},
		{"exit code", "echo out; exit 3", "out\nExit code: 3", 3},
		{"false", "false", "Exit code: 1", 1},
		{"stderr merged in order", "echo a; echo b >&2; echo c; echo d >&2", "a\nb\nc\nd", 0},
		{"stdin is /dev/null", "cat; echo done", "done", 0},
		{"syntax error", "if then", "", 2},
		{"killed by signal", "kill -9 $$", "Exit code: 137", 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runBashTool(t, env, map[string]any{"command": tt.command, "timeout": 20000})
			if res.IsError {
				t.Fatalf("unexpected error result %q", res.Output)
			}
			if tt.want != "" && res.Output != tt.want {
				t.Errorf("output %q, want %q", res.Output, tt.want)
			}
			if d := displayOf(t, res, display.KindCommand).Command; d.ExitCode != tt.code || d.TimedOut || d.Command != tt.command {
				t.Errorf("display %+v, want exit code %d", d, tt.code)
			}
		})
	}
}

func TestBashExitKeepsStateChanges(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	if err := os.Mkdir(filepath.Join(env.Workdir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := runBashTool(t, env, map[string]any{"command": "cd sub && export NOVA_X=1 && exit 4"})
	if !strings.HasSuffix(res.Output, "Exit code: 4") {
		t.Fatalf("output %q", res.Output)
	}
	res = runBashTool(t, env, map[string]any{"command": "echo $NOVA_X; pwd"})
	if want := "1\n" + filepath.Join(env.Workdir, "sub"); res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}

func TestBashLongOutputKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	res := runBashTool(t, env, map[string]any{"command": "seq 1 100000"})
	out := res.Output
	if len(out) > bashMaxOutput+200 {
		t.Errorf("output is %d characters, want about %d", len(out), bashMaxOutput)
	}
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "\n99999\n100000") {
		t.Errorf("head or tail missing: %q ... %q", out[:20], out[len(out)-20:])
	}
	m := regexp.MustCompile(`\[(\d+) characters of output cut`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no cut marker in output")
	}
	full := 0
	for i := 1; i <= 100000; i++ {
		full += len(strconv.Itoa(i)) + 1
	}
	if cut, _ := strconv.Atoi(m[1]); cut != full-bashMaxOutput {
		t.Errorf("marker says %d cut, want %d", cut, full-bashMaxOutput)
	}
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	res := runBashTool(t, env, map[string]any{"command": "echo pid=$$; sleep 30 & sleep 30 & wait", "timeout": 300})
	if !res.IsError || !strings.Contains(res.Output, "Command timed out after 0.3s") {
		t.Fatalf("result %+v", res)
	}
	if d := displayOf(t, res, display.KindCommand).Command; !d.TimedOut {
		t.Errorf("display %+v: TimedOut not set", d)
	}
	assertGroupGone(t, pidIn(t, res.Output, "pid"))
}

func TestBashStopsWhatTheCommandLeftRunning(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	res := runBashTool(t, env, map[string]any{"command": "sleep 30 & echo pid=$$", "timeout": 20000})
	if res.IsError {
		t.Fatalf("result %+v", res)
	}
	assertGroupGone(t, pidIn(t, res.Output, "pid"))
}

func TestBashContextCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := filepath.Join(env.Workdir, "started")
	done := make(chan Result, 1)
	go func() {
		raw, _ := json.Marshal(map[string]any{"command": "sleep 30 & echo $$ > started; wait"})
		res, err := (&Bash{}).Run(ctx, raw, env)
		if err != nil {
			res = Result{Output: err.Error()}
		}
		done <- res
	}()
	var pgid int
	for deadline := time.Now().Add(10 * time.Second); ; {
		if b, err := os.ReadFile(started); err == nil && strings.HasSuffix(string(b), "\n") {
			pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Output, "interrupted") {
		t.Errorf("result %+v", res)
	}
	assertGroupGone(t, pgid)
}

func TestBashDeletedCwdFallsBack(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	sub := filepath.Join(env.Workdir, "gone")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	runBashTool(t, env, map[string]any{"command": "cd gone"})
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	if req := (&Bash{}).Permission(json.RawMessage(`{"command":"pwd"}`), env); req.Workdir != env.Workdir {
		t.Errorf("permission workdir %q, want %q", req.Workdir, env.Workdir)
	}
	res := runBashTool(t, env, map[string]any{"command": "pwd"})
	if !strings.Contains(res.Output, "no longer exists") || !strings.HasSuffix(res.Output, "\n"+env.Workdir) {
		t.Errorf("output %q", res.Output)
	}
}

// prefixSandbox stands in for bwrap: it runs argv under env with a marker.
// env are the variables it says it sets (Env).
type prefixSandbox struct{ dirs, env []string }

// Env implements Sandbox.
func (s *prefixSandbox) Env() []string { return s.env }

func (s *prefixSandbox) Confine(cmd *exec.Cmd) (func(), error) {
	s.dirs = append(s.dirs, cmd.Dir)
	envPath, err := exec.LookPath("env")
	if err != nil {
		return nil, err
	}
	cmd.Args = append([]string{"env", "SANDBOXED=1"}, cmd.Args...)
	cmd.Path = envPath
	return func() {}, nil
}

func TestBashSandboxWrapsCommand(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	sb := &prefixSandbox{}
	env.Sandbox = sb
	res := runBashTool(t, env, map[string]any{"command": "echo sandboxed=$SANDBOXED"})
	if res.Output != "sandboxed=1" {
		t.Errorf("output %q", res.Output)
	}
	res = runBashTool(t, env, map[string]any{"command": "echo bg=$SANDBOXED", "run_in_background": true})
	if res.IsError {
		t.Fatalf("background: %q", res.Output)
	}
	if len(sb.dirs) != 2 || sb.dirs[0] != env.Workdir || sb.dirs[1] != env.Workdir {
		t.Errorf("Wrap saw workdirs %v, want %s twice", sb.dirs, env.Workdir)
	}
}

func TestBashToolsRegisterAndValidate(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	for _, tool := range []Tool{&Bash{}, &BashOutput{}, &KillShell{}} {
		if err := r.Register(tool); err != nil {
			t.Fatalf("register %s: %v", tool.Name(), err)
		}
	}
	tests := []struct {
		tool, input string
		ok          bool
	}{
		{"Bash", `{"command":"ls","timeout":1000,"description":"list","run_in_background":false}`, true},
		{"Bash", `{}`, false},
		{"Bash", `{"command":1}`, false},
		{"Bash", `{"command":"ls","extra":1}`, false},
		{"BashOutput", `{"bash_id":"bash_1","filter":"x"}`, true},
		{"BashOutput", `{}`, false},
		{"KillShell", `{"shell_id":"bash_1"}`, true},
		{"KillShell", `{"bash_id":"bash_1"}`, false},
	}
	for _, tt := range tests {
		if err := r.validate(tt.tool, json.RawMessage(tt.input)); (err == nil) != tt.ok {
			t.Errorf("%s %s: validate = %v, want ok %v", tt.tool, tt.input, err, tt.ok)
		}
	}
}

func TestBashTimeoutInput(t *testing.T) {
	t.Parallel()
	ms := func(v float64) *float64 { return &v }
	tests := []struct {
		in   *float64
		want time.Duration
	}{
		{nil, 2 * time.Minute},
		{ms(0), 2 * time.Minute},
		{ms(-5), 2 * time.Minute},
		{ms(1500), 1500 * time.Millisecond},
		{ms(10_000_000), 10 * time.Minute},
	}
	for _, tt := range tests {
		if got := bashTimeout(tt.in); got != tt.want {
			t.Errorf("bashTimeout(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBashExtraEnvOverridesNovas(t *testing.T) {
	env := newShellEnv(t)
	t.Setenv("NOVA_TEST_VAR", "from-nova")
	env.ExtraEnv = map[string]string{"NOVA_TEST_VAR": "from-settings", "NOVA_TEST_OTHER": "x"}
	res := runBashTool(t, env, map[string]any{"command": "echo $NOVA_TEST_VAR $NOVA_TEST_OTHER"})
	if res.Output != "from-settings x" {
		t.Errorf("output %q", res.Output)
	}
}

// TestBashStateCarriesLargeEnvironment: the restored environment comes over
// a pipe, so one larger than the pipe's buffer and than bash's argument
// limit per string still carries over whole.
func TestBashStateCarriesLargeEnvironment(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	res := runBashTool(t, env, map[string]any{"command": `for i in $(seq 1 100); do export NOVA_BIG_$i=$(printf 'x%.0s' $(seq 1 2000))"'q"; done`})
	if res.IsError {
		t.Fatalf("export: %s", res.Output)
	}
	res = runBashTool(t, env, map[string]any{"command": `n=0; for i in $(seq 1 100); do v=NOVA_BIG_$i; [ ${#v} -gt 0 ] && [ "${!v: -2}" = "'q" ] && [ ${#NOVA_BIG_1} -eq 2002 ] && n=$((n+1)); done; echo "carried=$n"; read -t 1 line && echo "stdin not empty: $line" || echo stdin-empty`})
	if !strings.Contains(res.Output, "carried=100") || !strings.Contains(res.Output, "stdin-empty") {
		t.Fatalf("%q", res.Output)
	}
}
