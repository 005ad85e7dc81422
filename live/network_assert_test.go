package live

import (
	"os/exec"

	"github.com/nova-dev/nova/sandbox"
)

// The tools hand each Bash command's decider to the sandbox through this
// method; a change of its signature must not silently drop the question.
var _ interface {
	ConfineHosts(cmd *exec.Cmd, decide func(host string, port int) error) (func(), error)
} = (*sandbox.Sandbox)(nil)
