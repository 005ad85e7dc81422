//go:build !linux

package tools

import "os"

// fdPath cannot ask the kernel here; the checks that need it are skipped.
func fdPath(*os.File) string { return "" }

// fdNumPath cannot ask the kernel here.
func fdNumPath(int) string { return "" }

// dirOfFD falls back to the file's name.
func dirOfFD(f *os.File) string { return f.Name() }
