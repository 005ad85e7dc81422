package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNetworkSettingForms(t *testing.T) {
	for _, c := range []struct {
		user, project, local string
		trusted              bool
		filtered, all        bool
		domains              []string
	}{
		{user: `true`, all: true},
		{user: `false`},
		{user: `{"allowedDomains": ["registry.npmjs.org"]}`, filtered: true, domains: []string{"registry.npmjs.org"}},
		{user: `{}`, filtered: true},
		// the domains of every file add up; the last form wins
		{user: `{"allowedDomains": ["a.example"]}`, local: `{"allowedDomains": ["*.b.example"]}`, trusted: true,
			filtered: true, domains: []string{"a.example", "*.b.example"}},
		{user: `{"allowedDomains": ["a.example"]}`, local: `false`, trusted: true, domains: []string{"a.example"}},
		// an untrusted project grants no host, and cannot turn the network on
		{user: `{"allowedDomains": ["a.example"]}`, project: `{"allowedDomains": ["evil.example"]}`,
			filtered: true, domains: []string{"a.example"}},
		{project: `{"allowedDomains": ["evil.example"]}`},
		{project: `true`},
		{user: `true`, project: `false`, all: false},
		{project: `{"allowedDomains": ["p.example"]}`, trusted: true, filtered: true, domains: []string{"p.example"}},
	} {
		home, proj := t.TempDir(), t.TempDir()
		for path, v := range map[string]string{
			filepath.Join(home, "settings.json"):                c.user,
			filepath.Join(proj, ".nova", "settings.json"):       c.project,
			filepath.Join(proj, ".nova", "settings.local.json"): c.local,
		} {
			if v != "" {
				writeFile(t, path, `{"sandbox": {"network": `+v+`}}`)
			}
		}
		s, _, err := LoadSettings(home, proj, "", c.trusted)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		n := s.Sandbox.Network
		if n.Filtered() != c.filtered || n.Everything() != c.all {
			t.Errorf("%+v: filtered %v all %v", c, n.Filtered(), n.Everything())
		}
		var got []string
		if n != nil {
			got = n.AllowedDomains
		}
		if len(got)+len(c.domains) > 0 && !slices.Equal(got, c.domains) {
			t.Errorf("%+v: domains %v", c, got)
		}
		cfg, err := s.PermissionConfig(PermissionOptions{Workspace: proj, Home: home})
		if err != nil {
			t.Fatal(err)
		}
		if want := c.domains; !c.filtered {
			if len(cfg.AllowedDomains) != 0 {
				t.Errorf("%+v: checker domains %v with the proxy off", c, cfg.AllowedDomains)
			}
		} else if len(want)+len(cfg.AllowedDomains) > 0 && !slices.Equal(cfg.AllowedDomains, want) {
			t.Errorf("%+v: checker domains %v", c, cfg.AllowedDomains)
		}
	}
}

func TestNetworkSettingBad(t *testing.T) {
	for v, want := range map[string]string{
		`"yes"`:                    "want true, false",
		`{"allowedDomain": ["x"]}`: "allowedDomain",
		`{"allowedDomains": ["example.com:443"]}`: "line 1",
		`{"allowedDomains": ["*.1.2.3.4"]}`:       "not addresses",
		`{"allowedDomains": ["https://x.org/"]}`:  "allowedDomains",
	} {
		home, proj := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(home, "settings.json"), `{"sandbox": {"network": `+v+`}}`)
		_, _, err := LoadSettings(home, proj, "", true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", v, err, want)
		}
	}
}
