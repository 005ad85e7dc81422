package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gofrs/flock"
)

// LockedError says a session is open in another process (or another
// Session of this one), which is the only writer allowed.
type LockedError struct {
	ID string
	// PID is the process holding the lock, or 0 when it could not be read.
	PID int
}

// Error words the refusal so a person knows what to close.
func (e *LockedError) Error() string {
	switch {
	case e.PID == os.Getpid():
		return fmt.Sprintf("session %s is already open in this nova process (pid %d)", e.ID, e.PID)
	case e.PID > 0:
		return fmt.Sprintf("session %s is open in another nova process (pid %d)", e.ID, e.PID)
	}
	return fmt.Sprintf("session %s is open in another nova process", e.ID)
}

// probeWait is how long acquire retries a lock held by someone else
// before it says the session is open elsewhere: far longer than InUse
// holds it, far shorter than a person notices.
const probeWait = 30 * time.Millisecond

// sessionLock is an exclusive flock on <dir>/lock. The kernel drops it when
// the process dies, so a crash never leaves a session locked.
type sessionLock struct {
	fl *flock.Flock
}

// acquire takes the lock of the session in dir without waiting, and writes
// this process's pid into the lock file so a refused process can name it.
func acquire(dir, id string) (*sessionLock, error) {
	path := filepath.Join(dir, lockFile)
	fl := flock.New(path, flock.SetPermissions(0o600))
	// A holder is a process that has the session open, for as long as it
	// does; InUse holds the lock shared for an instant only. Retrying for
	// a moment waits that out, so a reader's probe never makes an Open
	// fail, and a session really open elsewhere is still refused at once
	// as a person sees it.
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	ok, err := fl.TryLockContext(ctx, time.Millisecond)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) {
		ok, err = false, nil
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(id, err)
		}
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if !ok {
		return nil, &LockedError{ID: id, PID: readPID(path)}
	}
	if err := writePID(path); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	return &sessionLock{fl: fl}, nil
}

func (l *sessionLock) release() error {
	if err := l.fl.Unlock(); err != nil {
		return fmt.Errorf("unlock session: %w", err)
	}
	return nil
}

// writePID overwrites the start of the lock file with "<pid>\n" before
// cutting it to length, so a concurrent reader sees a whole pid on the first
// line (the old one or the new one), never an empty file.
func writePID(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	line := strconv.Itoa(os.Getpid()) + "\n"
	if _, err := f.WriteAt([]byte(line), 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(int64(len(line))); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
