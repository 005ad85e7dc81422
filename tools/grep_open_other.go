//go:build !unix

package tools

import "os"

// grepOpen opens path for the built-in search.
func grepOpen(path string) (f grepHandle, size int64, regular bool, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return grepHandle{}, 0, false, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return grepHandle{}, 0, false, err
	}
	return grepHandle{fh}, st.Size(), st.Mode().IsRegular(), nil
}

// grepHandle is a file open for the built-in search.
type grepHandle struct{ *os.File }
