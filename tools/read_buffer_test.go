package tools

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// fakeBuffers is an editor holding unsaved text for some files.
type fakeBuffers map[string]string

func (b fakeBuffers) ReadBuffer(_ context.Context, abs string) (string, error) {
	if s, ok := b[abs]; ok {
		return s, nil
	}
	return "", errors.New("not open in the editor")
}

// Read shows the editor's unsaved buffer, not the disk, when the session
// has an editor; a file the editor cannot give is read from the disk.
func TestReadEditorBuffer(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	open := filepath.Join(env.Workdir, "open.txt")
	closed := filepath.Join(env.Workdir, "closed.txt")
	putFile(t, open, "saved on disk\n", 0o644)
	putFile(t, closed, "only on disk\n", 0o644)
	env.Buffers = fakeBuffers{open: "unsaved in the editor\n"}

	res := callFileTool(t, &Read{}, env, map[string]any{"file_path": "open.txt"})
	if res.IsError || res.Output != "     1\tunsaved in the editor\n" {
		t.Errorf("Read of an open buffer = %q (error %v), want the buffer's text", res.Output, res.IsError)
	}
	if _, ok := env.Files.ReadAt(open); !ok {
		t.Error("a read of the buffer was not recorded for the read-before-write guard")
	}
	res = callFileTool(t, &Read{}, env, map[string]any{"file_path": "closed.txt"})
	if res.IsError || res.Output != "     1\tonly on disk\n" {
		t.Errorf("Read of a file the editor lacks = %q, want the disk's text", res.Output)
	}
}
