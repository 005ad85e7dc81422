//go:build unix

package tools

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The permission check judges a path when the call is checked; the write
// happens later. These tests swap a workspace directory for a link to the
// home directory in between and look for anything landing in the home.

const escapedMsg = "changed while it was being written (a directory in its path became a link outside the workspace); nothing was written"

// writeCase is one call of a file-writing tool, under dir (relative to the
// workspace), numbered i so that calls do not share files.
type writeCase struct {
	name  string
	tool  Tool
	input map[string]any
	files map[string]string // workspace-relative path -> content after the call; "" for removed
}

// seeded lists the files that must exist before the calls of writeCases:
// the ones edited, patched away and notebooks.
func seeded(dir string, i int) map[string]string {
	return map[string]string{
		fmt.Sprintf("%s/x%d.txt", dir, i):    "old\n",
		fmt.Sprintf("%s/d%d.txt", dir, i):    "doomed\n",
		fmt.Sprintf("%s/nb%d.ipynb", dir, i): testNotebook,
	}
}

func writeCases(dir string, i int) []writeCase {
	p := func(f string) string { return fmt.Sprintf("%s/%s", dir, fmt.Sprintf(f, i)) }
	return []writeCase{
		{"Write", &Write{}, map[string]any{"file_path": p("w%d.txt"), "content": "written\n"},
			map[string]string{p("w%d.txt"): "written\n"}},
		{"Edit", &Edit{}, map[string]any{"file_path": p("x%d.txt"), "old_string": "old", "new_string": "edited"},
			map[string]string{p("x%d.txt"): "edited\n"}},
		{"MultiEdit", &MultiEdit{}, map[string]any{"file_path": p("m%d.txt"),
			"edits": []map[string]any{{"old_string": "", "new_string": "multi\n"}, {"old_string": "multi", "new_string": "multi-edited"}}},
			map[string]string{p("m%d.txt"): "multi-edited\n"}},
		{"ApplyPatch", &ApplyPatch{}, map[string]any{"input": "*** Begin Patch\n*** Add File: " + p("p%d.txt") + "\n+patched\n*** Delete File: " + p("d%d.txt") + "\n*** End Patch"},
			map[string]string{p("p%d.txt"): "patched\n", p("d%d.txt"): ""}},
		{"NotebookEdit", &NotebookEdit{}, map[string]any{"notebook_path": p("nb%d.ipynb"), "cell_id": "c1", "new_source": "print('edited')"},
			map[string]string{p("nb%d.ipynb"): "print('edited')"}},
	}
}

// seedTwins puts each seeded file in the workspace and an identical twin,
// with the same modification time, at the same place under home, and
// records them as read: through a swapped link the tools read the twin and
// find it fresh, so only the write itself stands between them and home.
func seedTwins(t *testing.T, env *Env, home string, files map[string]string) {
	t.Helper()
	when := time.Now().Add(-time.Hour).Truncate(time.Second)
	for rel, content := range files {
		for _, p := range []string{env.Abs(rel), filepath.Join(home, strings.TrimPrefix(rel, "sub/"))} {
			putFile(t, p, content, 0o644)
			if err := os.Chtimes(p, when, when); err != nil {
				t.Fatal(err)
			}
		}
		env.Files.Record(env.Abs(rel))
	}
}

// snapshot is every entry below dir with its content, mode and time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %v", info.Mode(), info.ModTime().UnixNano())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantUnchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, d := range after {
		if before[p] != d {
			t.Errorf("%s appeared or changed in the home directory: %q", p, d)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s disappeared from the home directory", p)
		}
	}
}

// wantLanded checks that c's files in the workspace are as c leaves them.
func wantLanded(t *testing.T, env *Env, c writeCase) {
	t.Helper()
	for rel, want := range c.files {
		b, err := os.ReadFile(env.Abs(rel))
		switch {
		case want == "" && err == nil:
			t.Errorf("%s: %s still exists", c.name, rel)
		case want == "":
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !strings.Contains(string(b), want):
			t.Errorf("%s: %s = %q, want %q in it", c.name, rel, b, want)
		}
	}
}

// attackEnv is a workspace with sub/ and a fake home, HOME and NOVA_HOME
// pointing at temporary directories.
func attackEnv(t *testing.T) (*Env, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("NOVA_HOME", t.TempDir())
	env := NewEnv(t.TempDir())
	if err := os.Mkdir(env.Abs("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return env, home
}

// TestFileToolsRefuseDirectorySwappedAfterCheck makes the race certain:
// each call is checked while sub is a directory in the workspace, sub
// becomes a link to home, then the call runs. It must fail and leave home
// as it was; with sub put back, the same call lands in the workspace.
func TestFileToolsRefuseDirectorySwappedAfterCheck(t *testing.T) {
	env, home := attackEnv(t)
	seedTwins(t, env, home, seeded("sub", 0))
	before := snapshot(t, home)
	sub, aside := env.Abs("sub"), env.Abs("sub.real")
	for _, c := range writeCases("sub", 0) {
		raw, err := json.Marshal(c.input)
		if err != nil {
			t.Fatal(err)
		}
		req := requestFor(c.tool, raw, env)
		if len(req.Paths) == 0 || !strings.HasPrefix(req.Paths[0].Path, sub+"/") {
			t.Fatalf("%s: checked paths %+v, want ones in %s", c.name, req.Paths, sub)
		}
		if err := os.Rename(sub, aside); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(home, sub); err != nil {
			t.Fatal(err)
		}
		res := callFileTool(t, c.tool, env, c.input)
		if !res.IsError || !strings.Contains(res.Output, escapedMsg) {
			t.Errorf("%s through the swapped directory: IsError=%v %s", c.name, res.IsError, res.Output)
		}
		wantUnchanged(t, home, before)
		if err := os.Remove(sub); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(aside, sub); err != nil {
			t.Fatal(err)
		}
		// Positive control: the same call, with sub a directory again.
		if res := callFileTool(t, c.tool, env, c.input); res.IsError {
			t.Errorf("%s with no swap: %s", c.name, res.Output)
		}
		wantLanded(t, env, c)
	}
	wantUnchanged(t, home, before)
}

// swapper turns ws/sub back and forth between a real directory and a link
// to target, by renames, as fast as it can, until stopped.
type swapper struct {
	ws   string
	done chan struct{}
	wg   sync.WaitGroup
}

func startSwapper(t *testing.T, ws, target string) *swapper {
	t.Helper()
	s := &swapper{ws: ws, done: make(chan struct{})}
	sub, held, lnk := filepath.Join(ws, "sub"), filepath.Join(ws, "held"), filepath.Join(ws, "lnk")
	if err := os.Symlink(target, lnk); err != nil {
		t.Fatal(err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for n := 0; ; n++ {
			select {
			case <-s.done:
				return
			default:
			}
			os.Rename(sub, held) // the real directory aside
			os.Rename(lnk, sub)  // the link in its place
			os.Rename(sub, lnk)  // and aside again
			if os.Rename(held, sub) != nil {
				// A write made a new sub meanwhile; keep it in the
				// workspace and go on.
				os.Rename(sub, filepath.Join(ws, fmt.Sprintf("extra%d", n)))
				os.Rename(held, sub)
			}
		}
	}()
	return s
}

// stop ends the swapping and leaves ws/sub a real directory.
func (s *swapper) stop(t *testing.T) {
	t.Helper()
	close(s.done)
	s.wg.Wait()
	sub, held := filepath.Join(s.ws, "sub"), filepath.Join(s.ws, "held")
	if st, err := os.Lstat(sub); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if err := os.Remove(sub); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Lstat(held); err == nil {
		if _, err := os.Lstat(sub); err == nil {
			if err := os.Rename(sub, filepath.Join(s.ws, "extra-last")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Rename(held, sub); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestFileToolsSwapRace is the audit's attack, for real: a goroutine swaps
// sub between a directory and a link to home as fast as it can while every
// file-writing tool writes into sub, 40 calls each. Whatever the
// interleaving, nothing may appear or change in home, and every call that
// reports success has its file somewhere in the workspace. With the
// swapper stopped, the same calls land in sub: tools that refused every
// write would fail here.
func TestFileToolsSwapRace(t *testing.T) {
	env, home := attackEnv(t)
	const n = 40
	for i := range n {
		seedTwins(t, env, home, seeded("sub", i))
	}
	before := snapshot(t, home)
	s := startSwapper(t, env.Workdir, home)
	landed := map[string]string{} // base name -> content, of files written
	refused, calls := 0, 0
	for i := range n {
		for _, c := range writeCases("sub", i) {
			calls++
			res := callFileTool(t, c.tool, env, c.input)
			if strings.Contains(res.Output, escapedMsg) || strings.Contains(res.Output, "outside the workspace; nothing was written") {
				refused++
			}
			if res.IsError || c.name == "ApplyPatch" || c.name == "NotebookEdit" || c.name == "Edit" {
				continue // edits and removals may have hit either twin's reads
			}
			for rel, want := range c.files {
				landed[filepath.Base(rel)] = want
			}
		}
	}
	s.stop(t)
	wantUnchanged(t, home, before)
	found := 0
	err := filepath.WalkDir(env.Workdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if want, ok := landed[d.Name()]; ok && d.Type().IsRegular() {
			found++
			if got, _ := os.ReadFile(p); string(got) != want {
				t.Errorf("%s = %q, want %q", p, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != len(landed) {
		t.Errorf("%d created files reported written, %d found in the workspace", len(landed), found)
	}
	t.Logf("under attack: %d calls, %d refused as leading out of the workspace, %d files created in it", calls, refused, len(landed))

	// Positive control, with sub a directory again.
	for i := n; i < n+5; i++ {
		seedTwins(t, env, home, seeded("sub", i))
		for _, c := range writeCases("sub", i) {
			if res := callFileTool(t, c.tool, env, c.input); res.IsError {
				t.Errorf("%s with no attack: %s", c.name, res.Output)
			}
			wantLanded(t, env, c)
		}
	}
}

// A patch whose later file leads out of the workspace is refused whole:
// the earlier change is rolled back, the removal not made, home untouched.
func TestApplyPatchRollbackWhenAPathLeadsOut(t *testing.T) {
	env, home := attackEnv(t)
	putFile(t, env.Abs("a.txt"), "a\n", 0o644)
	putFile(t, env.Abs("keep.txt"), "keep\n", 0o644)
	putFile(t, filepath.Join(home, "new.txt"), "mine\n", 0o600)
	before := snapshot(t, home)
	if err := os.Remove(env.Abs("sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, env.Abs("sub")); err != nil {
		t.Fatal(err)
	}
	patch := "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Delete File: keep.txt\n*** Add File: sub/other.txt\n+x\n*** End Patch"
	res := callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": patch})
	wantContains(t, res.Output, escapedMsg, "rolled back; no files were changed")
	if got := fileText(t, env.Abs("a.txt")); got != "a\n" {
		t.Errorf("a.txt = %q after rollback", got)
	}
	if got := fileText(t, env.Abs("keep.txt")); got != "keep\n" {
		t.Errorf("keep.txt = %q after rollback", got)
	}
	wantUnchanged(t, home, before)
}

// A link file in the workspace is written through to a target inside; one
// whose target is outside is not written (name the target to write it,
// which asks), and an approved path outside the workspace is written.
func TestWriteLinkTargetsAndOutside(t *testing.T) {
	env, home := attackEnv(t)
	secret := filepath.Join(home, ".bashrc")
	putFile(t, secret, "mine\n", 0o644)
	if err := os.Symlink(secret, env.Abs("rc")); err != nil {
		t.Fatal(err)
	}
	env.Files.Record(env.Abs("rc"))
	res := callFileTool(t, &Write{}, env, map[string]any{"file_path": "rc", "content": "evil\n"})
	wantContains(t, res.Output, "is a link to "+secret+", outside the workspace; nothing was written")
	if got := fileText(t, secret); got != "mine\n" {
		t.Errorf("the target outside was changed: %q", got)
	}

	extra := t.TempDir()
	env.AddDirs = []string{extra}
	if err := os.Symlink(extra, env.Abs("extra")); err != nil {
		t.Fatal(err)
	}
	if res := callFileTool(t, &Write{}, env, map[string]any{"file_path": "extra/a/b.txt", "content": "x\n"}); res.IsError {
		t.Errorf("write through a link into an added directory: %s", res.Output)
	}
	if got := fileText(t, filepath.Join(extra, "a", "b.txt")); got != "x\n" {
		t.Errorf("added dir file = %q", got)
	}

	outside := filepath.Join(t.TempDir(), "new", "f.txt")
	if res := callFileTool(t, &Write{}, env, map[string]any{"file_path": outside, "content": "approved\n"}); res.IsError {
		t.Errorf("approved write outside: %s", res.Output)
	}
	if got := fileText(t, outside); got != "approved\n" {
		t.Errorf("outside file = %q", got)
	}
}
