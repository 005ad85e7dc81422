//go:build !unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
)

// BridgeArg is the hidden first argument that makes nova's executable run
// as the bridge inside the sandbox (see the unix build).
const BridgeArg = "__sandbox-bridge"

// startBridge is unix only: there is no sandbox elsewhere.
func (s *Sandbox) startBridge(HostDecider) (*os.File, func(), error) {
	return nil, nil, errors.New("sandbox: the network bridge needs a unix system")
}

// BridgeMain refuses: there is no sandbox to bridge out of here.
func BridgeMain([]string) int {
	fmt.Fprintln(os.Stderr, "nova sandbox bridge: not available on this system")
	return 125
}
