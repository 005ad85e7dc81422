package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// TestWriteThroughApprovedLink: a link in the workspace to a file outside
// is written when the real permission check judged that file and the call
// was allowed (a person approved it), and refused when the link now leads
// somewhere the check never saw.
func TestWriteThroughApprovedLink(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	target := filepath.Join(outside, "shared.md")
	other := filepath.Join(outside, "other.md")
	for _, f := range []string{target, other} {
		if err := os.WriteFile(f, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := t.TempDir()
	c, err := permission.NewChecker(permission.Config{Workspace: ws, Home: t.TempDir(), Mode: permission.ModeBypass})
	if err != nil {
		t.Fatal(err)
	}
	p, env := newPlPipeline(t, c, &Write{})
	env.Workdir = ws
	link := filepath.Join(ws, "AGENTS.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	env.Files.Record(link)
	out := plRun(p, env, "Write", `{"file_path":"`+link+`","content":"new\n"}`)
	if out.Result.IsError {
		t.Fatalf("approved write through the link: %s", out.Result.Output)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Fatalf("target holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	// The check approved target; a Write whose link now leads elsewhere
	// must not follow it there.
	pr := p.Prepare(t.Context(), Call{ID: "c2", Name: "Write", Input: []byte(`{"file_path":"` + link + `","content":"evil\n"}`)}, env)
	if pr.Concurrent() {
		t.Fatal("a write ran as concurrent")
	}
	pr.fresh = true // run on the decision taken before the swap, as a racing write would
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	res := pr.Execute(t.Context())
	if b, _ := os.ReadFile(other); string(b) != "old\n" {
		t.Fatalf("the write followed the swapped link: other holds %q (%s)", b, res.Result.Output)
	}
	if !res.Result.IsError {
		t.Errorf("the swapped write reported success: %s", res.Result.Output)
	}
}
