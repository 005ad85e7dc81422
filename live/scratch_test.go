package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSweepScratch: the scratch directories of processes that are gone
// are removed at the next start, with what they hold; those of running
// processes, and recent ones of an older nova without a pid, stay.
func TestSweepScratch(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	running := exec.Command("sleep", "100")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { running.Process.Kill(); running.Wait() })

	dir := func(name string, age time.Duration) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "nova-bash-x"), 0o700); err != nil {
			t.Fatal(err)
		}
		if age > 0 {
			at := time.Now().Add(-age)
			if err := os.Chtimes(p, at, at); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	dead := dir("run-"+strconv.Itoa(gone.Process.Pid)+".123", 0)
	mine, err := makeScratch(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(mine), "run-"+strconv.Itoa(os.Getpid())+".") {
		t.Errorf("scratch %s does not name this process", mine)
	}
	alive := dir("run-"+strconv.Itoa(running.Process.Pid)+".456", 0)
	oldLegacy := dir("run-987654", 48*time.Hour)
	newLegacy := dir("run-123456", 0)
	other := dir("keep-me", 48*time.Hour)

	sweepScratch(tmp)
	for p, keep := range map[string]bool{dead: false, mine: true, alive: true, oldLegacy: false, newLegacy: true, other: true} {
		_, err := os.Stat(p)
		if kept := err == nil; kept != keep {
			t.Errorf("%s: kept = %v, want %v", filepath.Base(p), kept, keep)
		}
	}
}
