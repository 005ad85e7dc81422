package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DirectoryEntry is one directory of a DirectoryListing.
type DirectoryEntry struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// DirectoryListing is the answer of GET /api/fs/list: the directories in
// Path, for a workspace picker.
type DirectoryListing struct {
	// Path is the directory listed, absolute with symlinks resolved.
	Path string `json:"path"`
	// Parent is the directory above Path; null at the root.
	Parent *string `json:"parent"`
	// Entries are Path's directories (symlinks to directories included),
	// by name; hidden ones only when asked.
	Entries []DirectoryEntry `json:"entries"`
}

// errRelative is a path that is neither absolute nor under ~.
var errRelative = errors.New("the path must be absolute or start with ~")

// canonicalPath expands a leading ~ with home (the user's home directory,
// os.UserHomeDir when empty), requires the path to be absolute and
// resolves its symlinks. The errors are those of the file system
// (fs.ErrNotExist, fs.ErrPermission) or errRelative.
func canonicalPath(p, home string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", fmt.Errorf("expand ~ in %s: the server knows no home directory", p)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: %w", p, errRelative)
	}
	return filepath.EvalSymlinks(filepath.Clean(p))
}

// defaultDir is the directory GET /api/fs/list shows without a path: the
// server's workspace, else the home directory.
func (s *Server) defaultDir() string {
	for _, d := range []string{s.o.Workdir, s.o.Home} {
		if d != "" {
			return d
		}
	}
	return string(filepath.Separator)
}

// handleFSList is GET /api/fs/list?path=&hidden=: 404 for a path that is
// missing or not a directory, 403 for one nova may not read.
func (s *Server) handleFSList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	hidden := false
	if v := q.Get("hidden"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("hidden=%q: want true or false", v))
			return
		}
		hidden = b
	}
	asked := q.Get("path")
	if asked == "" {
		asked = s.defaultDir()
	}
	dir, err := canonicalPath(asked, s.o.Home)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(dir); err == nil && !fi.IsDir() {
			writeError(w, http.StatusNotFound, asked+" is not a directory")
			return
		}
	}
	if err != nil {
		writeError(w, pathStatus(err), pathDetail(asked, err))
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, fs.ErrPermission) {
			status = http.StatusForbidden
		}
		writeError(w, status, pathDetail(asked, err))
		return
	}
	out := DirectoryListing{Path: dir, Entries: []DirectoryEntry{}}
	if parent := filepath.Dir(dir); parent != dir {
		out.Parent = &parent
	}
	for _, e := range entries {
		name := e.Name()
		if !hidden && strings.HasPrefix(name, ".") {
			continue
		}
		full := filepath.Join(dir, name)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(full) // a broken link is no directory
			isDir = err == nil && fi.IsDir()
		}
		if isDir {
			out.Entries = append(out.Entries, DirectoryEntry{Name: name, Path: full})
		}
	}
	sort.Slice(out.Entries, func(i, j int) bool {
		a, b := strings.ToLower(out.Entries[i].Name), strings.ToLower(out.Entries[j].Name)
		if a != b {
			return a < b
		}
		return out.Entries[i].Name < out.Entries[j].Name
	})
	writeJSON(w, http.StatusOK, out)
}

// pathStatus is the status for a file system error on a path the client
// named: 400 for a relative path, 403 for a permission error, else 404
// (missing, a file on the way, a link loop).
func pathStatus(err error) int {
	switch {
	case errors.Is(err, errRelative):
		return http.StatusBadRequest
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden
	}
	return http.StatusNotFound
}

// pathDetail says what went wrong with the path the client named.
func pathDetail(asked string, err error) string {
	switch {
	case errors.Is(err, errRelative):
		return fmt.Sprintf("path %q is relative: send an absolute path, or one starting with ~", asked)
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: nova may not read " + asked
	case errors.Is(err, fs.ErrNotExist):
		return asked + " does not exist"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", asked, pe.Err)
	}
	return fmt.Sprintf("%s: %v", asked, err)
}
