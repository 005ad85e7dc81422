package remote

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realDir is dir with its symlinks resolved (a temp dir may sit behind one).
func realDir(t *testing.T, dir string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func entryNames(l DirectoryListing) string {
	var names []string
	for _, e := range l.Entries {
		names = append(names, e.Name)
	}
	return strings.Join(names, ",")
}

func TestFSList(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	ws := realDir(t, ts.o.Workdir)
	for _, d := range []string{"src", "Alpha", "beta", ".git", "src/inner"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(ws, "src"), filepath.Join(ws, "linked"))
	os.Symlink(filepath.Join(ws, "README.md"), filepath.Join(ws, "file-link"))
	os.Symlink(filepath.Join(ws, "gone"), filepath.Join(ws, "broken"))

	// No path: the server's workspace. Directories only, by name whatever
	// the case, hidden ones left out, links to directories kept.
	code, body, _ := ts.do("GET", "/api/fs/list", "")
	if code != 200 {
		t.Fatalf("default: %d %s", code, body)
	}
	l := decode[DirectoryListing](t, body)
	if l.Path != ws || l.Parent == nil || *l.Parent != filepath.Dir(ws) || entryNames(l) != "Alpha,beta,linked,src" {
		t.Errorf("default listing = %+v", l)
	}
	if l.Entries[3] != (DirectoryEntry{Name: "src", Path: filepath.Join(ws, "src")}) {
		t.Errorf("entry = %+v", l.Entries[3])
	}
	if !strings.Contains(body, `"entries":[{"name":"Alpha","path":"`) {
		t.Errorf("body shape: %s", body)
	}
	if _, body, _ := ts.do("GET", "/api/fs/list?hidden=true", ""); entryNames(decode[DirectoryListing](t, body)) != ".git,Alpha,beta,linked,src" {
		t.Errorf("hidden=true: %s", body)
	}

	// A path through a symlink comes back resolved; an empty directory
	// has entries [], not null.
	code, body, _ = ts.do("GET", "/api/fs/list?path="+url.QueryEscape(filepath.Join(ws, "linked", "inner")), "")
	if code != 200 || decode[DirectoryListing](t, body).Path != filepath.Join(ws, "src", "inner") || !strings.Contains(body, `"entries":[]`) {
		t.Errorf("through a link: %d %s", code, body)
	}
	// Unclean paths are cleaned.
	if _, body, _ := ts.do("GET", "/api/fs/list?path="+url.QueryEscape(ws+"/src/../beta/"), ""); decode[DirectoryListing](t, body).Path != filepath.Join(ws, "beta") {
		t.Errorf("unclean path: %s", body)
	}

	// ~ is the user's home.
	home := realDir(t, ts.o.Home)
	os.MkdirAll(filepath.Join(home, "projects", "nova"), 0o755)
	for q, want := range map[string]string{"~": home, "~/projects": filepath.Join(home, "projects")} {
		code, body, _ := ts.do("GET", "/api/fs/list?path="+url.QueryEscape(q), "")
		if l := decode[DirectoryListing](t, body); code != 200 || l.Path != want {
			t.Errorf("path=%s: %d %s", q, code, body)
		}
	}

	// The root has no parent.
	if code, body, _ := ts.do("GET", "/api/fs/list?path=/", ""); code != 200 || !strings.Contains(body, `"path":"/","parent":null`) {
		t.Errorf("root: %d %.200s", code, body)
	}

	for _, tt := range []struct {
		name, query string
		status      int
		has         string
	}{
		{"missing", "path=" + url.QueryEscape(filepath.Join(ws, "nope")), 404, "does not exist"},
		{"a file", "path=" + url.QueryEscape(filepath.Join(ws, "README.md")), 404, "not a directory"},
		{"a link to a file", "path=" + url.QueryEscape(filepath.Join(ws, "file-link")), 404, "not a directory"},
		{"a broken link", "path=" + url.QueryEscape(filepath.Join(ws, "broken")), 404, "does not exist"},
		{"under a file", "path=" + url.QueryEscape(filepath.Join(ws, "README.md", "x")), 404, "README.md"},
		{"relative", "path=src", 400, "relative"},
		{"~user", "path=~root", 400, "relative"},
		{"bad hidden", "hidden=maybe", 400, "hidden"},
	} {
		code, body, _ := ts.do("GET", "/api/fs/list?"+tt.query, "")
		wantError(t, tt.name, code, body, tt.status, tt.has)
	}
}

func TestFSListDefaultsToHome(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil, func(o *Options) { o.Workdir = "" })
	code, body, _ := ts.do("GET", "/api/fs/list", "")
	if code != 200 || decode[DirectoryListing](t, body).Path != realDir(t, ts.o.Home) {
		t.Errorf("no workdir: %d %s", code, body)
	}
}

func TestFSListPermission(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory; pathStatus's mapping is tested in TestPathStatus")
	}
	ts := newConfigServer(t, nil)
	locked := filepath.Join(ts.o.Workdir, "locked")
	os.MkdirAll(filepath.Join(locked, "inner"), 0o755)
	os.Chmod(locked, 0o000)
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	for _, p := range []string{locked, filepath.Join(locked, "inner")} {
		code, body, _ := ts.do("GET", "/api/fs/list?path="+url.QueryEscape(p), "")
		wantError(t, p, code, body, 403, "permission denied")
	}
}

func TestPathStatus(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err    error
		status int
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}, http.StatusForbidden},
		{&fs.PathError{Op: "lstat", Path: "/x", Err: fs.ErrNotExist}, http.StatusNotFound},
		{fmt.Errorf("x: %w", errRelative), http.StatusBadRequest},
	} {
		if got := pathStatus(tt.err); got != tt.status {
			t.Errorf("pathStatus(%v) = %d, want %d", tt.err, got, tt.status)
		}
	}
	if d := pathDetail("/x", &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}); !strings.Contains(d, "permission denied") {
		t.Errorf("detail = %q", d)
	}
}
