//go:build !unix

package mcp

import "os/exec"

// detach leaves the server in nova's process group where sessions do
// not exist; it is killed when its context ends.
func detach(cmd *exec.Cmd) {}
