// Package memory holds what nova carries from one session to the next:
// instruction files (NOVACODE.md, AGENTS.md, CLAUDE.md), auto memory
// (MEMORY.md) and the memories store behind the server's /api/memories.
package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Instruction file names. Every directory from the repository root down to
// the working directory may hold each of them; AGENTS.md and CLAUDE.md are
// read so that projects written for other assistants work unchanged.
const (
	NovaFile   = "NOVACODE.md"
	AgentsFile = "AGENTS.md"
	ClaudeFile = "CLAUDE.md"
	// LocalFile holds personal instructions that are not committed.
	LocalFile = "NOVACODE.local.md"
)

// sharedNames are the instruction files of a directory that are
// committed with it, in the order they are read.
func sharedNames() []string {
	return []string{NovaFile, AgentsFile, ClaudeFile, filepath.Join(ClaudeDir, ClaudeFile)}
}

// localNames are a directory's files of a person's own, read after every
// shared one.
func localNames() []string { return []string{LocalFile, ClaudeLocalFile} }

// MaxFileBytes is how much of one instruction or memory file is loaded; the
// rest is cut with a note so one huge file cannot fill the context window.
const MaxFileBytes = 40 << 10

// MaxImportDepth is how many levels of @imports are followed.
const MaxImportDepth = 4

// File is one loaded instruction file.
type File struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Paths are a conditional rule's globs (a .claude/rules file with
	// `paths:` frontmatter): it goes to the model only when a tool
	// touches a file they match. Empty for every other file.
	Paths []string `json:"paths,omitempty"`
	// base is the directory Paths are relative to.
	base string
}

// LoadInstructions reads the instruction files that apply in workdir:
// NOVA_HOME/NOVACODE.md and Claude Code's CLAUDE.md and rules/ in
// claudeHome (~/.claude or CLAUDE_CONFIG_DIR; "" for none), then NOVACODE.md, AGENTS.md, CLAUDE.md,
// .claude/CLAUDE.md and .claude/rules of every directory from the
// repository root down to workdir, then the NOVACODE.local.md and
// CLAUDE.local.md files in the same order. Rules with `paths:` are
// returned as conditional files (File.Paths). Imported files follow the
// file that imports them. Problems with single files (a missing import, a
// cycle, an unreadable file) are returned as warnings; the error is only
// for a workdir that cannot be used. home is what "~/" in an import
// stands for.
func LoadInstructions(novaHome, workdir, home, claudeHome string) ([]File, []string, error) {
	wd, err := filepath.Abs(workdir)
	if err != nil {
		return nil, nil, fmt.Errorf("load instructions: %w", err)
	}
	if st, err := os.Stat(wd); err != nil {
		return nil, nil, fmt.Errorf("load instructions: %w", err)
	} else if !st.IsDir() {
		return nil, nil, fmt.Errorf("load instructions: %s is not a directory", wd)
	}
	l := newLoader(home, nil)
	if novaHome != "" {
		l.load(filepath.Join(novaHome, NovaFile))
	}
	root := repoRoot(wd)
	l.claudeUser(claudeHome, root)
	dirs := dirsDown(root, wd)
	for _, d := range dirs {
		for _, name := range sharedNames() {
			l.load(filepath.Join(d, name))
		}
		l.loadRules(d)
	}
	for _, d := range dirs {
		for _, name := range localNames() {
			l.load(filepath.Join(d, name))
		}
	}
	return l.files, l.warnings, nil
}

// Render turns instruction files into one block for the model, each file
// headed by its path. It returns "" when no file has content.
func Render(files []File) string {
	var b strings.Builder
	for _, f := range files {
		content := strings.TrimSpace(f.Content)
		if content == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("<instructions>\n")
			b.WriteString("The user's and the project's instructions follow. They override default behaviour: follow them exactly as written. Where two conflict, the later one (closer to the working directory) wins.\n")
		}
		fmt.Fprintf(&b, "\nContents of %s:\n\n%s\n", f.Path, content)
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("</instructions>\n")
	return b.String()
}

// repoRoot is the nearest ancestor of dir (dir included) holding .git, a
// directory or, in worktrees and submodules, a file; dir itself when none.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// dirsDown lists the directories from root down to dir, both included;
// root must be dir or one of its ancestors.
func dirsDown(root, dir string) []string {
	var up []string
	for d := dir; ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(up)
	return up
}

// loader reads instruction files and follows their imports, remembering
// what it has already included so no file appears twice.
type loader struct {
	home     string
	seen     map[string]bool // fileKey of every file included
	files    []File
	warnings []string
}

func newLoader(home string, seen map[string]bool) *loader {
	if seen == nil {
		seen = map[string]bool{}
	}
	return &loader{home: home, seen: seen}
}

// load includes the instruction file at path, if it exists, and its imports.
func (l *loader) load(path string) {
	l.include(path, 0, nil, "", "")
}

// include adds path and, depth-first, what it imports. chain holds the
// keys of the files importing it, for cycle detection; from and token name
// the import that led here ("" for a top-level file, which may be absent).
func (l *loader) include(path string, depth int, chain []string, from, token string) {
	key := fileKey(path)
	if slices.Contains(chain, key) {
		l.warnf("%s: import %s not followed: it would create a cycle (%s)", from, token, strings.Join(append(slices.Clone(chain), key), " -> "))
		return
	}
	if l.seen[key] {
		return
	}
	content, err := readCapped(path, MaxFileBytes)
	if err != nil {
		switch {
		case from == "" && errors.Is(err, fs.ErrNotExist):
		case from == "":
			l.warnf("instruction file skipped: %v", err)
		case errors.Is(err, fs.ErrNotExist):
			l.warnf("%s: import %s not found (%s)", from, token, path)
		default:
			l.warnf("%s: import %s skipped: %v", from, token, err)
		}
		return
	}
	l.seen[key] = true
	l.files = append(l.files, File{Path: path, Content: content})
	chain = append(slices.Clone(chain), key)
	for _, imp := range findImports(content) {
		tok := "@" + imp
		if depth+1 > MaxImportDepth {
			l.warnf("%s: import %s not followed: imports are followed at most %d levels deep", path, tok, MaxImportDepth)
			continue
		}
		target, err := resolveImport(imp, filepath.Dir(path), l.home)
		if err != nil {
			l.warnf("%s: import %s skipped: %v", path, tok, err)
			continue
		}
		l.include(target, depth+1, chain, path, tok)
	}
}

func (l *loader) warnf(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// fileKey identifies a file so that one reached through a symlink (AGENTS.md
// linked to CLAUDE.md is common) is included once.
func fileKey(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}

// resolveImport turns an import's path into a file path: "~/" is home,
// relative paths start in dir (the importing file's directory).
func resolveImport(p, dir, home string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", errors.New("no home directory to resolve ~ against")
		}
		return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(dir, p), nil
}

// readCapped reads up to limit bytes of a text file; a longer file is cut at
// a line (or at least a character) boundary and ends with a note saying so.
func readCapped(path string, limit int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err // *PathError already names the file
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file", path)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(data) <= limit {
		return string(data), nil
	}
	cut := data[:limit]
	if i := bytes.LastIndexByte(cut, '\n'); i >= limit/2 {
		cut = cut[:i+1]
	}
	// Drop a character the limit cut in half, never more.
	for i := 0; i < utf8.UTFMax-1 && len(cut) > 0; i++ {
		if r, size := utf8.DecodeLastRune(cut); r != utf8.RuneError || size != 1 {
			break
		}
		cut = cut[:len(cut)-1]
	}
	return fmt.Sprintf("%s\n[... truncated: %s is %d bytes; only the first %d bytes are loaded. Keep instruction files short.]\n",
		strings.TrimRight(string(cut), "\n"), path, st.Size(), len(cut)), nil
}
