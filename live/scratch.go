package live

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// scratchPrefix starts the name of a runtime's scratch directory in
// NOVA_HOME/tmp: run-<pid>.<random>, so a later nova can tell the
// directories of processes that are gone.
const scratchPrefix = "run-"

// legacyScratchAge is how old a scratch directory from before the pid was
// in its name must be to be taken for a leftover.
const legacyScratchAge = 24 * time.Hour

// makeScratch creates this process's scratch directory in tmp.
func makeScratch(tmp string) (string, error) {
	return os.MkdirTemp(tmp, scratchPrefix+strconv.Itoa(os.Getpid())+".*")
}

// sweepScratch removes the scratch directories in tmp that processes
// killed before their Close (SIGKILL, a crash) left behind: those whose
// process is gone, and those without a pid (an older nova's) untouched for
// a day. A directory whose pid runs is left alone, even when the pid was
// reused: a leftover kept is cheaper than a live session's files lost.
func sweepScratch(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		name, ok := strings.CutPrefix(e.Name(), scratchPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if pidPart, _, found := strings.Cut(name, "."); found {
			pid, err := strconv.Atoi(pidPart)
			if err != nil || pid <= 0 || pid == os.Getpid() || processRuns(pid) {
				continue
			}
		} else if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < legacyScratchAge {
			continue
		}
		_ = os.RemoveAll(path)
	}
}

// processRuns reports whether process pid exists.
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
