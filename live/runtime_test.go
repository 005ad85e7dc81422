package live

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestWriteErrWords covers the errors a test cannot make on a real disk.
func TestWriteErrWords(t *testing.T) {
	tests := []struct {
		errno syscall.Errno
		want  string
	}{
		{syscall.ENOSPC, "the file system there is full"},
		{syscall.EDQUOT, "the disk quota there is used up"},
		{syscall.EROFS, "the file system there is read-only"},
		{syscall.EIO, "input/output error"},
	}
	for _, tt := range tests {
		err := writeErr("cannot create the session", "/h/.nova/sessions", &fs.PathError{Op: "write", Path: "/h/.nova/sessions/x/lock", Err: tt.errno})
		var ce *ConfigError
		if errors.As(err, &ce) {
			t.Errorf("%v: %v is a configuration error, not the machine's", tt.errno, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tt.want) || !strings.Contains(msg, "cannot create the session in /h/.nova/sessions") {
			t.Errorf("%v: %q", tt.errno, msg)
		}
	}
}
