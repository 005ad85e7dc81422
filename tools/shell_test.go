//go:build unix

package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools/display"
)

// startBackground starts command with run_in_background and returns its id.
func startBackground(t *testing.T, env *Env, command string) string {
	t.Helper()
	res := runBashTool(t, env, map[string]any{"command": command, "run_in_background": true, "description": "test"})
	if res.IsError {
		t.Fatalf("start %q: %s", command, res.Output)
	}
	id := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(res.Output, "Command running in background with ID: "), "\n", 2)[0])
	if !strings.HasPrefix(id, "bash_") || !strings.Contains(res.Output, "BashOutput") || !strings.Contains(res.Output, "KillShell") {
		t.Fatalf("start output %q", res.Output)
	}
	return id
}

// readShell calls BashOutput and splits its result into status line and body.
func readShell(t *testing.T, env *Env, id, filter string) (status, body string) {
	t.Helper()
	in := map[string]any{"bash_id": id}
	if filter != "" {
		in["filter"] = filter
	}
	res := shellCall(t, context.Background(), &BashOutput{}, env, in)
	if res.IsError {
		t.Fatalf("BashOutput %s: %s", id, res.Output)
	}
	status, body, _ = strings.Cut(res.Output, "\n")
	if body == "(no new output)" {
		body = ""
	}
	return status, body
}

// readUntil reads shell id until the output read so far satisfies done,
// and returns all of it and the last status.
func readUntil(t *testing.T, env *Env, id, filter string, done func(out, status string) bool) (string, string) {
	t.Helper()
	var all []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, body := readShell(t, env, id, filter)
		if body != "" {
			all = append(all, body)
		}
		out := strings.Join(all, "\n")
		if done(out, status) {
			return out, status
		}
		if time.Now().After(deadline) {
			t.Fatalf("shell %s: gave up waiting; status %q, output so far %q", id, status, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func outputHas(s string) func(string, string) bool {
	return func(out, _ string) bool { return strings.Contains(out, s) }
}

func TestBashOutputReadsInPiecesWithFilter(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	id := startBackground(t, env, `echo first
while [ ! -e go1 ]; do sleep 0.01; done
echo second; printf 'match-1\nskip-2\nmatch-3\n'
while [ ! -e go2 ]; do sleep 0.01; done
echo match-last; echo tail-line`)
	if id != "bash_1" {
		t.Errorf("first shell id %q, want bash_1", id)
	}
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(env.Workdir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out, _ := readUntil(t, env, id, "", outputHas("first"))
	if out != "first" {
		t.Errorf("first read %q, want %q", out, "first")
	}
	if status, body := readShell(t, env, id, ""); status != "Status: running" || body != "" {
		t.Errorf("second read: %q %q, want running and nothing new", status, body)
	}

	touch("go1")
	out, _ = readUntil(t, env, id, "^match", outputHas("match-3"))
	if out != "match-1\nmatch-3" {
		t.Errorf("filtered read %q, want the matching lines only", out)
	}

	touch("go2")
	out, status := readUntil(t, env, id, "", func(_, status string) bool { return status != "Status: running" })
	if out != "match-last\ntail-line" {
		t.Errorf("last read %q: filtered-out lines must not come back", out)
	}
	if status != "Status: completed (exit code 0)" {
		t.Errorf("status %q", status)
	}
}

func TestBashOutputBackgroundSeesShellState(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	if err := os.Mkdir(filepath.Join(env.Workdir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	runBashTool(t, env, map[string]any{"command": "cd sub && export NOVA_BG=yes"})
	id := startBackground(t, env, "echo $NOVA_BG; pwd; cd /; exit 5")
	out, status := readUntil(t, env, id, "", func(_, status string) bool { return status != "Status: running" })
	if want := "yes\n" + filepath.Join(env.Workdir, "sub"); out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if status != "Status: failed (exit code 5)" {
		t.Errorf("status %q", status)
	}
	// A background command does not move the foreground shell.
	if res := runBashTool(t, env, map[string]any{"command": "pwd"}); res.Output != filepath.Join(env.Workdir, "sub") {
		t.Errorf("foreground cwd %q", res.Output)
	}
}

func TestKillShellKillsProcessGroup(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	id := startBackground(t, env, "echo pid=$$; sleep 30 & sleep 30 & echo started; wait")
	out, _ := readUntil(t, env, id, "", outputHas("started"))
	pgid := pidIn(t, out, "pid")

	res := shellCall(t, context.Background(), &KillShell{}, env, map[string]any{"shell_id": id})
	if res.IsError || !strings.Contains(res.Output, "Killed shell "+id) {
		t.Fatalf("KillShell: %+v", res)
	}
	if d := displayOf(t, res, display.KindShell).Shell; d.Status != "killed" || d.ID != id {
		t.Errorf("display %+v", d)
	}
	assertGroupGone(t, pgid)
	if status, _ := readShell(t, env, id, ""); !strings.HasPrefix(status, "Status: killed") {
		t.Errorf("status after kill %q", status)
	}
	res = shellCall(t, context.Background(), &KillShell{}, env, map[string]any{"shell_id": id})
	if !res.IsError || !strings.Contains(res.Output, "not running") {
		t.Errorf("second KillShell: %+v", res)
	}
}

func TestShellUnknownIDs(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	tests := []struct {
		name  string
		tool  Tool
		input map[string]any
		want  string
	}{
		{"output before any shell", &BashOutput{}, map[string]any{"bash_id": "bash_9"}, "none have been started"},
		{"kill before any shell", &KillShell{}, map[string]any{"shell_id": "bash_9"}, "none have been started"},
		{"bad filter", &BashOutput{}, map[string]any{"bash_id": "bash_1", "filter": "("}, "invalid filter"},
	}
	for _, tt := range tests {
		res := shellCall(t, context.Background(), tt.tool, env, tt.input)
		if !res.IsError || !strings.Contains(res.Output, tt.want) {
			t.Errorf("%s: %+v, want error containing %q", tt.name, res, tt.want)
		}
	}
	startBackground(t, env, "true")
	startBackground(t, env, "true")
	res := shellCall(t, context.Background(), &BashOutput{}, env, map[string]any{"bash_id": "nope"})
	if !res.IsError || !strings.Contains(res.Output, "known shells: bash_1, bash_2") {
		t.Errorf("unknown id: %q", res.Output)
	}
}

func TestShellCloseKillsBackgroundShells(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	var pgids []int
	for range 2 {
		id := startBackground(t, env, "echo pid=$$; sleep 30 & echo started; wait")
		out, _ := readUntil(t, env, id, "", outputHas("started"))
		pgids = append(pgids, pidIn(t, out, "pid"))
	}
	m := shellsOf(env)
	dir := m.dir
	if err := env.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, pgid := range pgids {
		assertGroupGone(t, pgid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("state dir %s still there: %v", dir, err)
	}
	if _, _, err := m.background(env, "true", "", runOpts{}); err == nil {
		t.Error("a closed manager started a shell")
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestShellHeadTailBuffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		max    int
		want   string
	}{
		{"short", []string{"ab", "cd"}, 10, "abcd"},
		{"exactly max", []string{"abcdefghij"}, 10, "abcdefghij"},
		{"cut", []string{"abc", "defghij", "klmno"}, 10, "abcde\n\n... [5 characters of output cut; showing the first 5 and the last 5] ...\n\nklmno"},
		{"many small writes", strings.Split(strings.Repeat("x", 30)+"12345", ""), 10, "xxxxx\n\n... [25 characters of output cut; showing the first 5 and the last 5] ...\n\n12345"},
		{"one big write", []string{"HEAD5" + strings.Repeat("-", 100) + "TAIL5"}, 10, "HEAD5\n\n... [100 characters of output cut; showing the first 5 and the last 5] ...\n\nTAIL5"},
	}
	for _, tt := range tests {
		h := &headTail{max: tt.max}
		for _, w := range tt.writes {
			if _, err := h.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
		}
		if got := h.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestShellBackgroundBufferCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		writes      []int
		wantDropped int
	}{
		{"under the cap", []int{100, 200}, 0},
		{"many writes over", []int{bgBufferCap / 2, bgBufferCap / 2, 300}, 300},
		{"one huge write", []int{10, bgBufferCap + 50}, 60},
	}
	for _, tt := range tests {
		s := &bgShell{status: shellStatusRun}
		var all []byte
		for i, n := range tt.writes {
			chunk := bytes.Repeat([]byte{byte('a' + i)}, n)
			all = append(all, chunk...)
			if _, err := s.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		text, dropped, _ := s.read(nil)
		if dropped != tt.wantDropped || text != string(all[tt.wantDropped:]) {
			t.Errorf("%s: dropped %d (want %d), kept %d bytes", tt.name, dropped, tt.wantDropped, len(text))
		}
		if text, dropped, _ := s.read(nil); text != "" || dropped != 0 {
			t.Errorf("%s: second read returned %d bytes, %d dropped", tt.name, len(text), dropped)
		}
	}
}
