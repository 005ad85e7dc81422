//go:build !linux

package tools

// RecordShellsIn does nothing here: a record needs a process's start time,
// which nova reads in Linux's /proc.
func RecordShellsIn(env *Env, dir string) {}

// ReapOrphanShells does nothing here; see RecordShellsIn.
func ReapOrphanShells(dir string) int { return 0 }

// shareShellRecords does nothing here; see RecordShellsIn.
func shareShellRecords(child, parent *Env) {}

// shellRecords records nothing here.
type shellRecords struct{}

func recordsOf(*Env) *shellRecords   { return nil }
func (*shellRecords) add(int) string { return "" }
func (*shellRecords) remove(string)  {}
