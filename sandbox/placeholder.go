package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// placeholderMode is the mode of a placeholder nova writes. Together with
// the content it is how a placeholder left by a nova that was killed is
// told from a file somebody meant to be there.
const placeholderMode = 0o444

// placeholderWait bounds how long claim keeps looking while another
// Sandbox or nova is removing the placeholder it was about to share. That
// takes a few system calls; a lock held longer is somebody else's.
const placeholderWait = 2 * time.Second

// placeholderIdle is how long the Sandbox keeps its placeholders after
// the last sandboxed command ended. An agent's commands come in bursts a
// few seconds apart, which pay for the placeholders once; between bursts
// (the person reading, typing) the empty directories go, so that what
// reads or writes the project outside sees it as it is.
const placeholderIdle = time.Minute

// placeholders are files nova writes on the host where git would read a
// file that does not exist (.git/commondir above all), and empty
// directories where a path that runs later does not exist (.vscode,
// .mcp.json), so that a bind can keep the sandbox from creating it. They
// are shared: by the commands of one Sandbox (and the Sandboxes Reroot
// made from it) through a reference count, and with other Sandboxes and
// other nova processes through a shared flock(2) on the file, so the last
// user removes it. Removing one while another sandbox still binds it would
// unmount it in that sandbox (the kernel detaches mounts whose mount point
// is unlinked elsewhere) and let that command create the file after all.
//
// Making and removing them is most of what a sandboxed command costs
// before bwrap starts (a directory made, renamed and removed on every call
// for each of some twenty paths), so the Sandbox keeps a reference of its
// own to each one it binds until Close, or until no command has run for
// placeholderIdle: the next command finds it in place and checks with a
// stat that it still is.
type placeholders struct {
	mu   sync.Mutex
	held map[string]*placeholder
	wait time.Duration // how long to wait for a lock; 0 means placeholderWait
	idle time.Duration // how long to keep them unused; 0 means placeholderIdle
	// timer gives back the kept references once idle; nil until the first
	// one is kept. last is when it was last restarted.
	timer *time.Timer
	last  time.Time
	// closed says Close ran: placeholders are no longer kept past their
	// commands.
	closed bool
}

// placeholder is one placeholder in use by this Sandbox.
type placeholder struct {
	path string
	refs int
	// kept says one of refs is the Sandbox's own, given back by Close.
	kept    bool
	content string
	// dir says it is an empty directory (placeholderDirMode), the mount
	// point of a path that runs later.
	dir bool
	// f holds the shared lock; nil when the file is not a placeholder and
	// so is bound without being ours to remove.
	f *os.File
}

// acquire makes sure each path holds its placeholder content, creating the
// files that are missing, and returns what release must be given back.
// With keep (unless closed already), the Sandbox keeps a reference of its
// own to each, given back once idle or at close. On error the command
// holds nothing; what was kept stays kept.
func (p *placeholders) acquire(specs []gitEntry, keep bool) ([]*placeholder, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep = keep && !p.closed
	if keep {
		p.idleLocked()
	}
	var got []*placeholder
	for _, e := range specs {
		if h := p.held[e.path]; h != nil {
			if h.f == nil || stillAt(h.f, e.path) {
				h.refs++
				if keep && h.f != nil && !h.kept {
					// A command's since the last idle or since a
					// command of a Sandbox that keeps nothing.
					h.refs, h.kept = h.refs+1, true
				}
				got = append(got, h)
				continue
			}
			// Removed or replaced since (by the user, or a git command
			// run outside): ours no longer, claimed again below. The
			// commands still holding it give it back as usual.
			delete(p.held, e.path)
			if h.kept {
				h.kept = false
				p.dropLocked(h)
			}
		}
		wait := p.wait
		if wait == 0 {
			wait = placeholderWait
		}
		dir := e.state == entryPlaceholderDir
		claim := claimPlaceholder
		if dir {
			claim = claimPlaceholderDir
		}
		f, err := claim(e.path, e.placeholder, wait)
		if err != nil {
			p.releaseLocked(got)
			return nil, fmt.Errorf("sandbox: protect %s: %w", e.path, err)
		}
		if p.held == nil {
			p.held = map[string]*placeholder{}
		}
		h := &placeholder{path: e.path, refs: 1, content: e.placeholder, dir: dir, f: f}
		if keep && f != nil {
			// Only one of ours: what was not a placeholder is looked at
			// again by the next command.
			h.refs, h.kept = 2, true
		}
		p.held[e.path] = h
		got = append(got, h)
	}
	return got, nil
}

// release gives back what acquire returned, removing each placeholder
// nobody uses any more.
func (p *placeholders) release(hs []*placeholder) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseLocked(hs)
	if p.timer != nil && !p.closed {
		// Idle from the end of the last command, not its start.
		p.idleLocked()
	}
}

// idleLocked (re)starts the countdown to giving back the kept references.
func (p *placeholders) idleLocked() {
	idle := p.idleFor()
	p.last = time.Now()
	if p.timer == nil {
		p.timer = time.AfterFunc(idle, p.expire)
		return
	}
	p.timer.Reset(idle)
}

// expire gives back the kept references when no command has run for a
// while; the next command makes (and keeps) them again.
func (p *placeholders) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < p.idleFor() {
		// A command came while it fired: the timer runs again.
		return
	}
	p.unkeepLocked()
}

// idleFor is how long placeholders are kept unused.
func (p *placeholders) idleFor() time.Duration {
	if p.idle == 0 {
		return placeholderIdle
	}
	return p.idle
}

func (p *placeholders) releaseLocked(hs []*placeholder) {
	for _, h := range hs {
		p.dropLocked(h)
	}
}

// close gives back the references the Sandbox kept, removing each
// placeholder no command uses any more; the ones in use go when their
// last command ends.
func (p *placeholders) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.unkeepLocked()
}

// unkeepLocked gives back the references the Sandbox kept.
func (p *placeholders) unkeepLocked() {
	for _, h := range p.held {
		if h.kept {
			h.kept = false
			p.dropLocked(h)
		}
	}
}

// dropLocked gives back one reference to h, and removes the placeholder
// with the last one when nobody else binds it.
func (p *placeholders) dropLocked(h *placeholder) {
	if h.refs--; h.refs > 0 {
		return
	}
	if p.held[h.path] == h {
		delete(p.held, h.path)
	}
	if h.f == nil {
		return
	}
	// An exclusive lock means no other Sandbox or nova binds it; the
	// file must also still be the one we hold and still a placeholder,
	// or it is somebody else's now.
	same := samePlaceholder
	if h.dir {
		same = samePlaceholderDir
	}
	if lockFile(h.f, true) == nil {
		switch {
		case same(h.f, h.path, h.content):
			// A directory is removed only while empty: rmdir never
			// takes anything with it.
			_ = os.Remove(h.path)
		case h.dir && stillAt(h.f, h.path):
			// Written in from outside (nova's own rules in .nova, the
			// editor's settings): the user's directory now, which loses
			// the mark.
			unmarkDir(h.f)
		}
	}
	h.f.Close()
}

// claimPlaceholder shares the placeholder at path, or creates it, and
// returns it holding a shared lock. It returns a nil file without error
// when what is there is not a placeholder (it appeared since the plan was
// made): that is bound as it is, and never removed.
func claimPlaceholder(path, content string, wait time.Duration) (*os.File, error) {
	deadline := time.Now().Add(wait)
	pause := 50 * time.Microsecond
	for time.Now().Before(deadline) {
		f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
		switch {
		case err == nil:
			if !isPlaceholderFile(f, content) {
				f.Close()
				return nil, nil
			}
			// Exclusively locked means its last user is removing it.
			if lockFile(f, false) == nil && samePlaceholder(f, path, content) {
				return f, nil
			}
			f.Close()
			time.Sleep(pause)
			pause = min(2*pause, 10*time.Millisecond)
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
		f, err = createPlaceholder(path, content)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s stays locked by another process", path)
}

// createPlaceholder makes the placeholder complete, locked, under a
// temporary name and links it into place, so nobody ever sees it without
// its content and mode (and takes it for a file of the user's). Where the
// filesystem has no hard links it is created in place instead.
func createPlaceholder(path, content string) (*os.File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".nova-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := lockFile(tmp, false); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := writePlaceholder(tmp, content); err != nil {
		tmp.Close()
		return nil, err
	}
	err = os.Link(tmp.Name(), path)
	if err == nil {
		return tmp, nil
	}
	tmp.Close()
	if errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, placeholderMode)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, false); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := writePlaceholder(f, content); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// writePlaceholder fills a new placeholder and gives it its mode, which
// the umask may have narrowed.
func writePlaceholder(f *os.File, content string) error {
	if _, err := f.WriteString(content); err != nil {
		return err
	}
	return f.Chmod(placeholderMode)
}

// isPlaceholderFile reports whether the open file f is a regular file of
// placeholderMode holding exactly content.
func isPlaceholderFile(f *os.File, content string) bool {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != placeholderMode || fi.Size() != int64(len(content)) {
		return false
	}
	b := make([]byte, len(content)+1)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	return bytes.Equal(b[:n], []byte(content))
}

// samePlaceholder reports whether path still names the file f and f is
// still a placeholder.
func samePlaceholder(f *os.File, path, content string) bool {
	return stillAt(f, path) && isPlaceholderFile(f, content)
}

// stillAt reports whether path still names the open file f.
func stillAt(f *os.File, path string) bool {
	at, err := os.Lstat(path)
	if err != nil {
		return false
	}
	open, err := f.Stat()
	return err == nil && os.SameFile(at, open)
}

// isPlaceholderPath reports whether path holds a placeholder with content,
// as one left by a nova that was killed would.
func isPlaceholderPath(path, content string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return isPlaceholderFile(f, content)
}
