package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cacheWorld is a home with a Go module cache of the user's, a workspace
// and a scratch directory, and a Sandbox with private caches over them.
type cacheWorld struct {
	home, ws, scratch, caches, userMods string
	sb                                  *Sandbox
}

func newCacheWorld(t *testing.T, getenv func(string) string) *cacheWorld {
	t.Helper()
	root := realTempDir(t)
	w := &cacheWorld{home: mkdir(t, root, "home")}
	w.ws = mkdir(t, w.home, "proj")
	w.scratch = mkdir(t, w.home, ".nova", "tmp", "run-1")
	mkdir(t, w.scratch, "tmp")
	w.caches = filepath.Join(w.home, ".nova", "cache", "sandbox")
	w.userMods = mkdir(t, w.home, "go", "pkg", "mod", "cache", "download")
	mkdir(t, w.home, ".cache", "go-build")
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	w.sb = realSandbox(t, Config{Workspace: w.ws, AddDirs: []string{w.scratch}, Home: w.home,
		Caches: w.caches, TempDir: filepath.Join(w.scratch, "tmp"), Getenv: getenv})
	return w
}

func TestBwrapCaches(t *testing.T) {
	t.Parallel()
	w := newCacheWorld(t, func(k string) string {
		if k == "MAVEN_OPTS" {
			return "-Xmx1g"
		}
		return ""
	})
	// Every cache variable names a directory the command can write, and
	// what it writes is there for the next command.
	script := `set -e
for v in GOCACHE GOMODCACHE npm_config_cache YARN_CACHE_FOLDER npm_config_store_dir PIP_CACHE_DIR CARGO_HOME GRADLE_USER_HOME XDG_CACHE_HOME TMPDIR; do
  eval d=\$$v
  test -n "$d" || { echo "$v unset"; exit 1; }
  echo "$v" > "$d/written"
done
echo "GOPROXY=$GOPROXY"
echo "MAVEN_OPTS=$MAVEN_OPTS"`
	out, err := runEnv(t, w.sb, "", []string{"PATH=" + os.Getenv("PATH"), "GOCACHE=" + filepath.Join(w.home, ".cache", "go-build")}, "sh", "-c", script)
	if err != nil {
		t.Fatalf("writing the caches: %v: %s", err, out)
	}
	for _, c := range w.sb.Caches() {
		if c.Var == "MAVEN_OPTS" {
			continue
		}
		if !within(c.Path, w.caches) {
			t.Errorf("%s cache %s is not below %s", c.Tool, c.Path, w.caches)
		}
		if b, err := os.ReadFile(filepath.Join(c.Path, "written")); err != nil || strings.TrimSpace(string(b)) != c.Var {
			t.Errorf("%s: %s/written: %q %v", c.Var, c.Path, b, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w.scratch, "tmp", "written")); err != nil || string(b) != "TMPDIR\n" {
		t.Errorf("TMPDIR is not the session's temporary directory: %q %v", b, err)
	}
	wantProxy := "GOPROXY=file://" + w.userMods + ",https://proxy.golang.org,direct"
	if !strings.Contains(out, wantProxy+"\n") {
		t.Errorf("output %q lacks %q", out, wantProxy)
	}
	if want := "MAVEN_OPTS=-Xmx1g -Dmaven.repo.local=" + filepath.Join(w.caches, "m2"); !strings.Contains(out, want) {
		t.Errorf("output %q lacks %q", out, want)
	}
	// The user's own caches stay read-only: they run later outside.
	for _, p := range []string{filepath.Join(w.home, ".cache", "go-build", "x"), filepath.Join(w.userMods, "x")} {
		out, err := run(t, w.sb, "", "sh", "-c", `echo x > "$1"`, "sh", p)
		if err == nil || hostHasWrite(p) || !strings.Contains(out, "Read-only") {
			t.Errorf("write %s: err %v: %s", p, err, out)
		}
	}
	if got := w.sb.Writable(); !slices.Contains(got, w.caches) || got[0] != w.ws {
		t.Errorf("Writable() = %v", got)
	}
}

func TestGoProxy(t *testing.T) {
	t.Parallel()
	home := realTempDir(t)
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := goProxy(getenv, home); got != "" {
		t.Errorf("without a module cache: %q", got)
	}
	mods := mkdir(t, home, "go", "pkg", "mod", "cache", "download")
	if got, want := goProxy(getenv, home), "file://"+mods+",https://proxy.golang.org,direct"; got != want {
		t.Errorf("default: %q, want %q", got, want)
	}
	// go env -w writes a file the go command reads; so does this.
	writeFile(t, filepath.Join(mkdir(t, home, ".config", "go"), "env"), "GOPROXY=https://goproxy.example\n")
	if got, want := goProxy(getenv, home), "file://"+mods+",https://goproxy.example"; got != want {
		t.Errorf("go env file: %q, want %q", got, want)
	}
	env["GOPROXY"] = "off"
	if got, want := goProxy(getenv, home), "file://"+mods; got != want {
		t.Errorf("GOPROXY=off: %q, want %q", got, want)
	}
	other := mkdir(t, home, "elsewhere", "cache", "download")
	env["GOMODCACHE"] = filepath.Dir(filepath.Dir(other))
	env["GOPROXY"] = "https://a,https://b"
	if got, want := goProxy(getenv, home), "file://"+other+",https://a,https://b"; got != want {
		t.Errorf("GOMODCACHE: %q, want %q", got, want)
	}
}

func TestWithEnv(t *testing.T) {
	t.Parallel()
	got := withEnv([]string{"A=1", "TMPDIR=/x", "B=2"}, []string{"TMPDIR=/y", "C=3"})
	if want := []string{"A=1", "B=2", "TMPDIR=/y", "C=3"}; !slices.Equal(got, want) {
		t.Errorf("withEnv = %q, want %q", got, want)
	}
}

func TestCachesRefuseHome(t *testing.T) {
	t.Parallel()
	home := realTempDir(t)
	ws := mkdir(t, home, "proj")
	_, err := New(Config{Workspace: ws, Home: home, Caches: filepath.Dir(home), Probed: fakeBwrap()})
	if err == nil || !strings.Contains(err.Error(), "home") {
		t.Errorf("caches above the home: %v", err)
	}
	_, err = New(Config{Workspace: ws, Home: home, TempDir: t.TempDir(), Probed: fakeBwrap()})
	if err == nil || !strings.Contains(err.Error(), "outside the writable") {
		t.Errorf("temporary directory outside: %v", err)
	}
}
