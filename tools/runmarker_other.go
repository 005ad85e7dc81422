//go:build unix && !linux

package tools

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
)

// runMarkerVar names the variable that marks every process of a command;
// see runmarker_linux.go. Here nothing reads it back: finding processes by
// their environment takes Linux's /proc.
const runMarkerVar = "NOVA_RUN_ID"

// newRunMarker returns a marker for one session's commands.
func newRunMarker() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return strconv.Itoa(os.Getpid()) + "-0-0-" + hex.EncodeToString(b[:])
}

// killEscapees does nothing here: without /proc the group kill is all.
func killEscapees(pgid int, marker string, leaderAlive, all bool) {}

// killMarked does nothing here; see killEscapees.
func killMarked(marker string) {}
