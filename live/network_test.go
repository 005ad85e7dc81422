package live

import (
	"runtime"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/permission"
)

func TestNetworkFiltered(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		n       *config.NetworkSetting
		bridge  string
		want    bool
		wantMac bool
	}{
		{"unset, nova's bridge known", nil, "/usr/bin/nova", true, true},
		{"unset, no bridge (a library caller)", nil, "", false, true},
		{"true: the whole network", &config.NetworkSetting{All: &yes}, "/usr/bin/nova", false, false},
		{"false: none", &config.NetworkSetting{All: &no}, "/usr/bin/nova", false, false},
		{"allowedDomains", &config.NetworkSetting{AllowedDomains: []string{"example.com"}}, "/usr/bin/nova", true, true},
	} {
		want := tc.want
		if runtime.GOOS == "darwin" {
			want = tc.wantMac
		}
		if got := networkFiltered(tc.n, tc.bridge); got != want {
			t.Errorf("%s: filtered %v, want %v", tc.name, got, want)
		}
	}
}

// TestSandboxHostsUnset: with sandbox.network unset, the sandbox's own
// judge (commands with nobody to ask) lets the hosts of WebFetch allow
// rules through and refuses the rest, naming the host and the setting.
func TestSandboxHostsUnset(t *testing.T) {
	st := &config.Settings{}
	cfg := permission.Config{Workspace: t.TempDir(), Home: t.TempDir(), Rules: permission.Rules{Allow: []string{"WebFetch(domain:pkg.example.com)"}}}
	decide, err := sandboxHosts(st, cfg, "/usr/bin/nova")
	if err != nil || decide == nil {
		t.Fatalf("unset sandbox.network: decider %v, err %v", decide != nil, err)
	}
	if err := decide("pkg.example.com", 443); err != nil {
		t.Errorf("the rule's host refused: %v", err)
	}
	err = decide("evil.example.org", 443)
	if err == nil || !strings.Contains(err.Error(), "evil.example.org") || !strings.Contains(err.Error(), "sandbox.network.allowedDomains") {
		t.Errorf("another host: %v", err)
	}
}
