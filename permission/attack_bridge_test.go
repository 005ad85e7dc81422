package permission_test

import (
	"os"
	"testing"

	"github.com/nova-dev/nova/sandbox"
)

// TestMain lets this test binary run as the sandbox's network bridge, as
// nova's own executable does, for the cases that filter the network
// through nova's proxy (class 22).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
		os.Exit(sandbox.BridgeMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
