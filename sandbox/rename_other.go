//go:build !linux

package sandbox

import "errors"

// renameNoReplace is not available here; placeholders are only written by
// the bwrap backend, which runs on Linux, and callers fall back to mkdir.
func renameNoReplace(from, to string) error { return errors.ErrUnsupported }
