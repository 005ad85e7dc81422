package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/team"
)

// runTeam runs nova team ... in-process with NOVA_HOME home.
func runTeam(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, LookupEnv: envMap(map[string]string{"NOVA_HOME": home}), Workdir: t.TempDir()}
	code := run(context.Background(), append([]string{"team"}, args...), s)
	return out.String(), errOut.String(), code
}

func TestTeamListAndStatus(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".nova")
	if out, _, code := runTeam(t, home, "list"); code != 0 || !strings.Contains(out, "No teams.") {
		t.Errorf("list with no teams: %d %q", code, out)
	}
	if _, errOut, code := runTeam(t, home, "status"); code != 2 || !strings.Contains(errOut, "no teams yet") {
		t.Errorf("status with no teams: %d %q", code, errOut)
	}
	tm, err := team.Open(home, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	tm.AddMember(team.Member{Name: "bob", PID: 999999999, Branch: "nova/team/alpha/bob", Worktree: "/w/bob", SessionID: "s-bob"})
	tm.Board.Create("lead", "Write the parser", "")
	tm.Board.Update("1", "bob", team.Update{Status: team.StatusInProgress})
	out, errOut, code := runTeam(t, home, "status")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errOut)
	}
	for _, want := range []string{"Team alpha", "NAME", "bob", "999999999", "no", "nova/team/alpha/bob", "/w/bob", "s-bob", "#1 [in_progress] bob: Write the parser"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "bob" && f[2] != "no" {
			t.Errorf("a dead pid is shown alive: %q", line)
		}
	}
	if out, _, _ := runTeam(t, home, "list"); !strings.Contains(out, "alpha") || !strings.Contains(out, "1") {
		t.Errorf("list = %q", out)
	}
	team.Open(home, "beta")
	if _, errOut, code := runTeam(t, home, "status"); code != 2 || !strings.Contains(errOut, "name one") {
		t.Errorf("status with two teams: %d %q", code, errOut)
	}
	if _, errOut, code := runTeam(t, home, "status", "gamma"); code != 2 || !strings.Contains(errOut, "alpha, beta") {
		t.Errorf("status gamma: %d %q", code, errOut)
	}
}
