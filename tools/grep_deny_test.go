package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// The token is in .env, in a denied directory and in ordinary files; only
// .env and secrets/ hold denySentinel, so any output holding it came from
// a denied file.
const (
	denyToken    = "tok-4b1d"
	denySentinel = "sentinel-9c2e"
)

// denyFixture is a workspace whose .env and secrets/ a Read deny rule
// covers, with the same token in files that may be searched.
func denyFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	ftTree(t, root, map[string]string{
		".git/HEAD":             "ref: refs/heads/main\n",
		".env":                  "API_TOKEN=" + denyToken + "-" + denySentinel + "\n",
		"secrets/prod.key":      "API_TOKEN=" + denyToken + " " + denySentinel + "\n",
		"secrets/deep/more.txt": denyToken + " " + denySentinel + "\n",
		"app/config.go":         "package app\n\n// reads " + denyToken + " from the environment\nvar Token = \"" + denyToken + "\"\n",
		"README.md":             "Set " + denyToken + " in .env\n",
		"sub/.env.example":      "API_TOKEN=" + denyToken + "-example\n",
	})
	return root
}

// denyFunc is Env.DeniedRead for the rules Read(.env) and Read(secrets/**)
// of the workspace at root, as the permission checker reports them: a
// directory a rule covers is denied with everything below it.
func denyFunc(root string) func(string) bool {
	return func(p string) bool {
		rel, ok := relUnder(root, p)
		if !ok {
			return false
		}
		return rel == ".env" || rel == "secrets" || strings.HasPrefix(rel, "secrets/")
	}
}

func denyBackends(t *testing.T) []string {
	backends := []string{"builtin"}
	if _, err := exec.LookPath("rg"); err == nil {
		backends = append(backends, "rg")
	} else {
		t.Log("rg not installed: only the built-in search is tested")
	}
	return backends
}

func TestGrepDenyRules(t *testing.T) {
	t.Parallel()
	root := denyFixture(t)
	denied := NewEnv(root)
	denied.DeniedRead = denyFunc(root)
	open := NewEnv(root)
	cases := []map[string]any{
		{"pattern": denyToken},
		{"pattern": denyToken, "output_mode": "content"},
		{"pattern": denyToken, "output_mode": "content", "-C": 2},
		{"pattern": denyToken, "output_mode": "count"},
		{"pattern": denySentinel, "output_mode": "content"},
		{"pattern": `API_TOKEN=\S+`, "output_mode": "content", "-i": true},
		{"pattern": denyToken, "glob": ".env*", "output_mode": "content"},
		{"pattern": denySentinel, "multiline": true, "output_mode": "content"},
	}
	for _, c := range cases {
		name, _ := json.Marshal(c)
		t.Run(string(name), func(t *testing.T) {
			outputs := map[string]string{}
			for _, backend := range denyBackends(t) {
				res := ftRun(t, &Grep{Backend: backend}, denied, c)
				outputs[backend] = res.Output
				if res.IsError {
					t.Fatalf("%s: error %s", backend, res.Output)
				}
				env := filepath.Join(root, ".env")
				for _, leak := range []string{denySentinel, env + ":", env + "-", env + "\n", "secrets"} {
					if strings.Contains(res.Output+"\n", leak) {
						t.Errorf("%s: output holds %q from a denied file:\n%s", backend, leak, res.Output)
					}
				}
				if c["pattern"] != denySentinel && c["glob"] == nil && !strings.Contains(res.Output, filepath.Join(root, "sub/.env.example")) {
					t.Errorf("%s: an allowed file is missing:\n%s", backend, res.Output)
				}
				if !strings.Contains(res.Output, "[1 file and 1 directory left out by a Read deny rule]") {
					t.Errorf("%s: no note of what was left out:\n%s", backend, res.Output)
				}
				// Positive control: without the rule the same search finds them.
				ctl := ftRun(t, &Grep{Backend: backend}, open, c)
				if !strings.Contains(ctl.Output+"\n", env+":") && !strings.Contains(ctl.Output+"\n", env+"\n") {
					t.Errorf("%s: control search without the rule does not find .env:\n%s", backend, ctl.Output)
				}
				if !strings.Contains(ctl.Output, "secrets") && c["glob"] == nil {
					t.Errorf("%s: control search without the rule does not find secrets/:\n%s", backend, ctl.Output)
				}
				if strings.Contains(ctl.Output, "left out by a Read deny rule") {
					t.Errorf("%s: control search has a deny note:\n%s", backend, ctl.Output)
				}
			}
			if len(outputs) == 2 && outputs["builtin"] != outputs["rg"] {
				t.Errorf("backends differ\n--- builtin:\n%s\n--- rg:\n%s", outputs["builtin"], outputs["rg"])
			}
		})
	}
}

// TestGrepDenyNoteIsBlind checks the note cannot be used to probe a denied
// file: it is the same whether or not the file would have matched.
func TestGrepDenyNoteIsBlind(t *testing.T) {
	t.Parallel()
	root := denyFixture(t)
	env := NewEnv(root)
	env.DeniedRead = denyFunc(root)
	for _, backend := range denyBackends(t) {
		hit := ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": denySentinel})
		miss := ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": "no-such-text-anywhere"})
		want := "No files found\n[1 file and 1 directory left out by a Read deny rule]"
		if hit.Output != want || miss.Output != want {
			t.Errorf("%s: a pattern only denied files hold gives %q, one nothing holds gives %q; want both %q", backend, hit.Output, miss.Output, want)
		}
	}
}

// TestGrepDenyRoot refuses a search of a denied file or directory itself,
// even if the pipeline's check was bypassed.
func TestGrepDenyRoot(t *testing.T) {
	t.Parallel()
	root := denyFixture(t)
	env := NewEnv(root)
	env.DeniedRead = denyFunc(root)
	for _, backend := range denyBackends(t) {
		for _, p := range []string{".env", "secrets", "secrets/prod.key"} {
			res := ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": denyToken, "path": p, "output_mode": "content"})
			if !res.IsError || strings.Contains(res.Output, denySentinel) || !strings.Contains(res.Output, "Read deny rule") {
				t.Errorf("%s: Grep in %s = %+v, want a refusal", backend, p, res)
			}
		}
	}
}

// TestGrepDenyRealChecker runs the attack with the permission checker's own
// ReadDenied, as cmd/nova wires it.
func TestGrepDenyRealChecker(t *testing.T) {
	t.Parallel()
	root := denyFixture(t)
	// A link to .env must not be a way around the rule.
	if err := os.Symlink(".env", filepath.Join(root, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	for _, rules := range [][]string{{"Read(.env)", "Read(./secrets/**)"}, nil} {
		c, err := permission.NewChecker(permission.Config{Workspace: root, Home: t.TempDir(), Rules: permission.Rules{Deny: rules}})
		if err != nil {
			t.Fatal(err)
		}
		env := NewEnv(root)
		env.DeniedRead = c.ReadDenied
		for _, backend := range denyBackends(t) {
			for _, mode := range []string{"files_with_matches", "content", "count"} {
				res := ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": denyToken, "output_mode": mode})
				leaked := strings.Contains(res.Output, denySentinel) || strings.Contains(res.Output, filepath.Join(root, ".env")+"\n") ||
					strings.Contains(res.Output, filepath.Join(root, ".env")+":") || strings.Contains(res.Output, "secrets")
				if rules != nil && leaked {
					t.Errorf("%s %s with %v: denied content in output:\n%s", backend, mode, rules, res.Output)
				}
				if rules == nil && !leaked {
					t.Errorf("%s %s without rules: control does not find the denied files:\n%s", backend, mode, res.Output)
				}
				if !strings.Contains(res.Output, filepath.Join(root, "app/config.go")) {
					t.Errorf("%s %s: the allowed file is missing:\n%s", backend, mode, res.Output)
				}
			}
		}
	}
}

func TestGlobDenyRules(t *testing.T) {
	t.Parallel()
	root := denyFixture(t)
	env := NewEnv(root)
	env.DeniedRead = denyFunc(root)
	cases := []struct {
		pattern string
		note    string
	}{
		{"**/*", "(1 file and 1 directory left out by a Read deny rule)"},
		{"**/.env", "No files found\n(1 file and 1 directory left out by a Read deny rule)"},
		{".env", "No files found\n(1 file left out by a Read deny rule)"}, // secrets/ is deeper than the pattern reaches
		{"*.md", ""},
	}
	for _, c := range cases {
		res := ftRun(t, &Glob{}, env, map[string]any{"pattern": c.pattern})
		if strings.Contains(res.Output, filepath.Join(root, ".env")+"\n") || strings.HasSuffix(res.Output, filepath.Join(root, ".env")) || strings.Contains(res.Output, "secrets") {
			t.Errorf("Glob(%s) lists a denied path:\n%s", c.pattern, res.Output)
		}
		if c.note != "" && !strings.HasSuffix(res.Output, c.note) {
			t.Errorf("Glob(%s) = %q, want it to end with %q", c.pattern, res.Output, c.note)
		}
		if c.note == "" && strings.Contains(res.Output, "deny") {
			t.Errorf("Glob(%s) = %q, want no deny note", c.pattern, res.Output)
		}
		ctl := ftRun(t, &Glob{}, NewEnv(root), map[string]any{"pattern": c.pattern})
		if c.pattern != "*.md" && !strings.Contains(ctl.Output, filepath.Join(root, ".env")) {
			t.Errorf("control Glob(%s) without the rule does not list .env:\n%s", c.pattern, ctl.Output)
		}
	}
	res := ftRun(t, &Glob{}, env, map[string]any{"pattern": "**/*", "path": "secrets"})
	if !res.IsError || strings.Contains(res.Output, "prod.key") {
		t.Errorf("Glob in a denied directory = %+v, want a refusal", res)
	}
}

// TestLSDenyRules: LS lists a denied file's name (a name is not content),
// marked, and does not list what is inside a denied directory.
func TestLSDenyRules(t *testing.T) {
	t.Parallel()
	root := denyFixture(t)
	env := NewEnv(root)
	env.DeniedRead = denyFunc(root)
	res := ftRun(t, &LS{}, env, map[string]any{})
	for _, want := range []string{"  - .env (read denied)\n", "  - secrets/ (read denied)\n", "[2 entries marked (read denied)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("LS lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "prod.key") || strings.Contains(res.Output, "deep/") {
		t.Errorf("LS lists inside a denied directory:\n%s", res.Output)
	}
	ctl := ftRun(t, &LS{}, NewEnv(root), map[string]any{})
	if !strings.Contains(ctl.Output, "prod.key") || strings.Contains(ctl.Output, "denied") {
		t.Errorf("control LS without the rule:\n%s", ctl.Output)
	}
	res = ftRun(t, &LS{}, env, map[string]any{"path": "secrets"})
	if !res.IsError || strings.Contains(res.Output, "prod.key") {
		t.Errorf("LS of a denied directory = %+v, want a refusal", res)
	}
}

// TestGrepRGExcludes checks the excludes given to rg name exactly the denied
// paths, metacharacters and all, so rg never opens them.
func TestGrepRGExcludes(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	root := t.TempDir()
	names := []string{"a*b.env", "c[1].env", "{d,e}.env", "f?.env", `g\h.env`, "!i.env", "j.env", "dir*x/k.txt"}
	files := map[string]string{"keep.txt": "needle\n", "jj.env": "needle\n"}
	for _, n := range names {
		files[n] = "needle\n"
	}
	ftTree(t, root, files)
	env := NewEnv(root)
	env.DeniedRead = func(p string) bool {
		rel, _ := relUnder(root, p)
		return rel == "dir*x" || (strings.HasSuffix(rel, ".env") && rel != "jj.env")
	}
	q, err := newGrepQuery(grepInput{Pattern: "needle"}, env)
	if err != nil {
		t.Fatal(err)
	}
	pre, excludes, err := grepPreScan(t.Context(), q)
	if err != nil || pre.denied != 7 || pre.deniedDirs != 1 || len(excludes) != 8 {
		t.Fatalf("grepPreScan = %+v, %q, %v; want 7 files, 1 directory and 8 excludes", pre, excludes, err)
	}
	args := []string{"--no-config", "--files", "--hidden", "--no-require-git"}
	for _, x := range excludes {
		args = append(args, "--glob", x)
	}
	cmd := exec.Command(rg, args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rg --files: %v", err)
	}
	got := strings.Fields(string(out))
	if strings.Join(got, " ") != "jj.env keep.txt" && strings.Join(got, " ") != "keep.txt jj.env" {
		t.Errorf("rg with the excludes lists %q, want only keep.txt and jj.env", got)
	}
}
