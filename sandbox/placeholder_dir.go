package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// placeholderDirMode is the mode of a placeholder directory. An empty
// directory of exactly this mode is taken for one a killed nova left: it
// holds nothing, so removing it loses nothing even when it was somebody
// else's. The sticky bit is the mark (no tool makes such a directory in a
// project); the owner may write in it, since the Sandbox keeps it between
// commands and nova itself (an "always allow" rule in
// .nova/settings.local.json) or the user's editor (.vscode/settings.json)
// may write there meanwhile: what is written makes it the user's
// directory, which the next command protects as such. Inside the sandbox
// it is bound read-only whatever its mode.
const placeholderDirMode = 0o755 | fs.ModeSticky

// placeholderDirModeOld is the mode of the placeholder directories of an
// earlier nova, which only made them for the time of a command; the sweep
// still removes the ones such a nova left when it was killed.
const placeholderDirModeOld = 0o555

// placeholderDirBits are the mode bits placeholderDirMode is compared on.
const placeholderDirBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// A path that runs later and does not exist (.vscode, .mcp.json,
// .claude) gets an empty directory as its mount point, whether it would be
// a file or a directory: bwrap binds by path, and a bind needs something
// there. An empty directory is what no program acts on while it exists:
// an editor finds no tasks.json in it, direnv and nova find no .envrc or
// .mcp.json file, where an empty file would be read as invalid JSON or an
// empty script. It is removed when the last Sandbox keeping it is closed
// and no command binds it.

// claimPlaceholderDir shares the placeholder directory at path, or creates
// it, and returns it open, holding a shared lock. It returns a nil file
// without error when what is there is not a placeholder (it appeared since
// the plan was made): that is bound as it is, and never removed.
func claimPlaceholderDir(path, _ string, wait time.Duration) (*os.File, error) {
	deadline := time.Now().Add(wait)
	pause := 50 * time.Microsecond
	for time.Now().Before(deadline) {
		f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oDirectory, 0)
		switch {
		case err == nil:
			if !isPlaceholderDir(f) {
				f.Close()
				return nil, nil
			}
			// Exclusively locked means its last user is removing it.
			if lockFile(f, false) == nil && samePlaceholderDir(f, path, "") {
				return f, nil
			}
			f.Close()
			time.Sleep(pause)
			pause = min(2*pause, 10*time.Millisecond)
			continue
		case errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
			return nil, nil // a file or a link now: bound as it is
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
		f, err = createPlaceholderDir(path)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s stays locked by another process", path)
}

// createPlaceholderDir makes the placeholder directory complete (mode
// and lock) under a temporary name and renames it into place without
// replacing anything, so nobody ever sees it half made. Where the
// filesystem cannot rename that way it is made in place.
func createPlaceholderDir(path string) (*os.File, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".nova-*")
	if err != nil {
		return nil, err
	}
	f, err := lockedDir(tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	err = renameNoReplace(tmp, path)
	if err == nil {
		return f, nil
	}
	f.Close()
	os.Remove(tmp)
	if errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	if err := os.Mkdir(path, placeholderDirMode); err != nil {
		return nil, err
	}
	if f, err = lockedDir(path); err != nil {
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// lockedDir gives the new directory dir its mode (the umask may have
// narrowed it) and returns it open with a shared lock.
func lockedDir(dir string) (*os.File, error) {
	if err := os.Chmod(dir, placeholderDirMode); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(dir, os.O_RDONLY|oNoFollow|oDirectory, 0)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// isPlaceholderDir reports whether the open directory f is empty and of
// placeholderDirMode.
func isPlaceholderDir(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() || !isPlaceholderDirMode(fi.Mode()) {
		return false
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	names, err := f.Readdirnames(1)
	return len(names) == 0 && errors.Is(err, io.EOF)
}

// samePlaceholderDir reports whether path still names the directory f and
// f is still an empty placeholder.
func samePlaceholderDir(f *os.File, path, _ string) bool {
	return stillAt(f, path) && isPlaceholderDir(f)
}

// isPlaceholderDirPath reports whether path is a placeholder directory,
// as one left by a nova that was killed would be.
func isPlaceholderDirPath(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oDirectory, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return isPlaceholderDir(f)
}

// isPlaceholderDirMode reports whether m is the mode of a placeholder
// directory, this nova's or an earlier one's.
func isPlaceholderDirMode(m fs.FileMode) bool {
	m &= placeholderDirBits
	return m == placeholderDirMode || m == placeholderDirModeOld
}

// unmarkDir gives the open directory f, a placeholder somebody wrote in,
// an ordinary directory's mode, so that it is not taken for a placeholder
// again when it is emptied.
func unmarkDir(f *os.File) {
	if fi, err := f.Stat(); err == nil && fi.Mode()&placeholderDirBits == placeholderDirMode {
		_ = f.Chmod(0o755)
	}
}
