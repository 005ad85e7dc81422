package permission

import "testing"

// TestCommandTableParses keeps every entry of the command table readable:
// an entry that does not parse would silently make its program ask.
func TestCommandTableParses(t *testing.T) {
	for _, e := range tableErrors() {
		t.Error(e)
	}
}
