package live

import (
	"fmt"
	"runtime"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/sandbox"
)

// networkFiltered says whether sandboxed commands reach the network
// through nova's filtering proxy. sandbox.network true opens it whole,
// false cuts it, the object form filters it; unset filters it too (the
// allowed domains are then the WebFetch domain allow rules alone, and
// every other host is asked), wherever nova can run the proxy: on Linux
// that needs the bridge's executable (bridge, nova's own), which every
// nova command knows; a caller without one keeps the network cut.
func networkFiltered(n *config.NetworkSetting, bridge string) bool {
	if n != nil {
		return n.Filtered()
	}
	return bridge != "" || runtime.GOOS == "darwin"
}

// NetworkSummary says in a few words what sandboxed commands reach, for
// nova doctor: the setting's own words, or for an unset setting what
// nova does then.
func NetworkSummary(st *config.Settings, filtered bool) string {
	if st.Sandbox.Network != nil || !filtered {
		return st.Sandbox.Network.Describe()
	}
	return "through nova's proxy (sandbox.network unset): hosts of WebFetch(domain:...) allow rules go through, " +
		"others are asked (refused in print mode)"
}

// sandboxHosts is the sandbox's own judge of hosts when the network is
// filtered (networkFiltered), and nil when it is open or cut whole. It
// decides as the session's checker does (allowed domains, WebFetch
// domain rules, deny rules holding) but asks nobody: it serves the
// commands that have no call to ask through (hooks' and skills' commands,
// !cmd); the Bash tool's commands ask through their call
// (tools/shellhosts.go).
func sandboxHosts(st *config.Settings, cfg permission.Config, bridge string) (sandbox.HostDecider, error) {
	if !networkFiltered(st.Sandbox.Network, bridge) {
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
