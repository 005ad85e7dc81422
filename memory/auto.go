package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
)

// MemoryFile is the name of the auto memory file in ProjectDir.
const MemoryFile = "MEMORY.md"

// MaxMemoryLines is how many lines of MEMORY.md go into the prompt.
const MaxMemoryLines = 200

// memoryHeading is the heading remembered items are added under.
const memoryHeading = "# Memory"

// Kinds of remembered items, as the Remember tool names them.
const (
	KindFact       = "fact"
	KindPreference = "preference"
	KindDecision   = "decision"
)

// ProjectDir is where auto memory for workdir lives:
// NOVA_HOME/projects/<project>/memory, <project> being the absolute workdir
// with its separators replaced by "-" (as Claude Code names its project
// directories), so each project keeps its own memory.
func ProjectDir(novaHome, workdir string) string {
	wd, err := filepath.Abs(workdir)
	if err != nil {
		wd = filepath.Clean(workdir)
	}
	// ':' too, so a Windows drive letter does not end up in a directory name.
	name := strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(filepath.ToSlash(wd))
	return filepath.Join(novaHome, "projects", name, "memory")
}

// MemoryPath is the MEMORY.md file of workdir, the one the TUI's /memory
// opens in $EDITOR.
func MemoryPath(novaHome, workdir string) string {
	return filepath.Join(ProjectDir(novaHome, workdir), MemoryFile)
}

// LoadMemory returns the first MaxMemoryLines lines of workdir's MEMORY.md
// for the prompt, with a note when there are more; "" when there is none.
func LoadMemory(novaHome, workdir string) (string, error) {
	if novaHome == "" {
		return "", errors.New("load memory: NOVA_HOME is not set")
	}
	path := MemoryPath(novaHome, workdir)
	content, err := readCapped(path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("load memory: %w", err)
	}
	content = strings.TrimRight(content, "\n")
	if strings.TrimSpace(content) == "" {
		return "", nil
	}
	lines := strings.Split(content, "\n")
	if len(lines) <= MaxMemoryLines {
		return content + "\n", nil
	}
	return fmt.Sprintf("%s\n[... %d more lines not loaded: only the first %d lines of %s are read. Keep it short: edit the file directly to condense or reorganise it.]\n",
		strings.Join(lines[:MaxMemoryLines], "\n"), len(lines)-MaxMemoryLines, MaxMemoryLines, path), nil
}

// AppendMemory adds "- [kind] text (date)" under the "# Memory" heading of
// workdir's MEMORY.md, creating the file. kind is fact (when empty),
// preference or decision; newlines in text are collapsed so one memory is
// one bullet. The file is locked, so concurrent sessions never lose an
// append, and rewritten atomically.
func AppendMemory(novaHome, workdir, kind, text string) error {
	if novaHome == "" {
		return errors.New("append memory: NOVA_HOME is not set")
	}
	if kind == "" {
		kind = KindFact
	}
	switch kind {
	case KindFact, KindPreference, KindDecision:
	default:
		return fmt.Errorf("append memory: unknown kind %q (want fact, preference or decision)", kind)
	}
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return errors.New("append memory: the memory is empty")
	}
	bullet := fmt.Sprintf("- [%s] %s (%s)", kind, text, time.Now().Format(time.DateOnly))
	path := MemoryPath(novaHome, workdir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("append memory: %w", err)
	}
	return withLock(path, func() error {
		old, mode, err := readFileMode(path, 0o600)
		if err != nil {
			return fmt.Errorf("append memory: %w", err)
		}
		if err := atomicfile.Write(path, []byte(insertBullet(old, bullet)), mode); err != nil {
			return fmt.Errorf("append memory: %w", err)
		}
		return nil
	})
}

// insertBullet puts bullet at the end of the "# Memory" section of doc (up
// to the next top-level heading), adding the heading when it is missing.
func insertBullet(doc, bullet string) string {
	if strings.TrimSpace(doc) == "" {
		return memoryHeading + "\n\n" + bullet + "\n"
	}
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == memoryHeading {
			start = i
			break
		}
	}
	if start < 0 {
		return strings.Join(lines, "\n") + "\n\n" + memoryHeading + "\n\n" + bullet + "\n"
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "# ") {
			end = i
			break
		}
	}
	at := end // after the section's last non-blank line
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	add := []string{bullet}
	if at == start+1 {
		add = []string{"", bullet} // a blank line under the heading
	}
	if at < len(lines) && at == end {
		add = append(add, "")
	}
	out := append(append(lines[:at:at], add...), lines[at:]...)
	return strings.Join(out, "\n") + "\n"
}

// readFileMode reads path, returning "" and def when it does not exist, and
// the file's permissions otherwise so a rewrite keeps them.
func readFileMode(path string, def os.FileMode) (string, os.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", def, nil
	}
	if err != nil {
		return "", 0, err
	}
	mode := def
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return string(data), mode, nil
}

// withLock runs fn holding an exclusive lock on path+".lock", which every
// process and goroutine rewriting path takes.
func withLock(path string, fn func() error) error {
	lk := flock.New(path + ".lock")
	if err := lk.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lk.Close() // releases the lock
	return fn()
}
