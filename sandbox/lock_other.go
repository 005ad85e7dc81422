//go:build !unix

package sandbox

import (
	"errors"
	"os"
)

// oNoFollow is zero where there is no O_NOFOLLOW; placeholders are only
// written by the bwrap backend, which runs on Linux.
const oNoFollow = 0

// oDirectory is zero where there is no O_DIRECTORY, for the same reason.
const oDirectory = 0

// lockFile fails: no backend that writes placeholders runs here.
func lockFile(f *os.File, exclusive bool) error {
	return errors.ErrUnsupported
}
