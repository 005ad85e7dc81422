package live

import (
	"fmt"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/sandbox"
)

// sandboxHosts is the sandbox's own judge of hosts when the settings
// filter the network (sandbox.network.allowedDomains), and nil when they
// open or cut it whole. It decides as the session's checker does (allowed
// domains, WebFetch domain rules, deny rules holding) but asks nobody: it
// serves the commands that have no call to ask through (hooks' and
// skills' commands, !cmd); the Bash tool's commands ask through their
// call (tools.HostAsker).
func sandboxHosts(st *config.Settings, cfg permission.Config) (sandbox.HostDecider, error) {
	if !st.Sandbox.Network.Filtered() {
		return nil, nil
	}
	c, err := permission.NewChecker(cfg)
	if err != nil {
		return nil, fmt.Errorf("sandbox network: %w", err)
	}
	return func(host string, _ int) error {
		d := c.CheckHost(host)
		if d.Behavior == permission.Allow {
			return nil
		}
		why := "it is not in sandbox.network.allowedDomains, and nobody can be asked for this command"
		if d.Behavior == permission.Deny {
			why = d.Reason
		}
		return sandbox.Refusal(host, why)
	}, nil
}
