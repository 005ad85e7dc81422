package tools

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// FileTracker remembers which files the model has read and what they looked
// like then, so Write and Edit refuse to clobber a file the model has not
// seen or that changed on disk since.
type FileTracker struct {
	mu   sync.Mutex
	seen map[string]fileStamp
}

type fileStamp struct {
	readAt  time.Time
	modTime time.Time
	size    int64
}

// NewFileTracker returns an empty tracker.
func NewFileTracker() *FileTracker { return &FileTracker{seen: map[string]fileStamp{}} }

// Record notes that path was read (or written) now, as it is on disk.
func (t *FileTracker) Record(path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[path] = fileStamp{readAt: time.Now(), modTime: st.ModTime(), size: st.Size()}
}

// ReadAt reports when path was last read, if it was.
func (t *FileTracker) ReadAt(path string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.seen[path]
	return s.readAt, ok
}

// CheckFresh returns an error a model can act on when path exists but was
// not read first, or changed on disk since it was read. A file that does
// not exist is always fine to create.
func (t *FileTracker) CheckFresh(path string) error {
	st, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	t.mu.Lock()
	s, ok := t.seen[path]
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s exists but has not been read in this session; Read it first, then write", path)
	}
	if !st.ModTime().Equal(s.modTime) || st.Size() != s.size {
		return fmt.Errorf("%s has changed on disk since it was last read (%s); Read it again before writing", path, s.readAt.Format(time.TimeOnly))
	}
	return nil
}
