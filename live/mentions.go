package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/nova-dev/nova/tools"
)

// ErrNotAFile says an @word of a prompt names no file: it stays text for
// the model (an address, a handle, a decorator).
var ErrNotAFile = errors.New("not a file")

// mentionSeq numbers the Read calls made for @file mentions, so each has
// its own call id in hooks and the transcript.
type mentionSeq struct{ n atomic.Int64 }

// ReadMentionedFile reads the file a prompt names with @path (relative to
// the workspace, or absolute), as Claude Code attaches it: through the
// session's one pipeline as a Read the person typed, so a deny rule and
// PreToolUse hooks hold, the size limits of Read apply, and the file
// counts as read for a later Edit. It returns ErrNotAFile when path names
// no regular file.
func (rt *Runtime) ReadMentionedFile(ctx context.Context, path string) (string, error) {
	abs := rt.Env.Abs(path)
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return "", ErrNotAFile
	}
	input, err := json.Marshal(map[string]string{"file_path": abs})
	if err != nil {
		return "", fmt.Errorf("@%s: %w", path, err)
	}
	id := fmt.Sprintf("mention_%d", rt.mentions.n.Add(1))
	out := rt.Pipeline.Run(ctx, tools.Call{ID: id, Name: "Read", Input: input, Typed: true}, rt.Env)
	switch {
	case out.Denied:
		return "", fmt.Errorf("@%s: not attached, reading it is denied (%s): %s", path, out.Decision.Layer, out.Decision.Reason)
	case out.Result.IsError:
		return "", fmt.Errorf("@%s: %s", path, strings.TrimSpace(out.Result.Output))
	}
	return out.Result.Output, nil
}
