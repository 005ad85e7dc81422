package permission

import "testing"

func TestNormalizeHost(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Example.COM", "example.com"},
		{"example.com.", "example.com"},
		{"[::1]", "::1"},
		{"::ffff:127.0.0.1", "127.0.0.1"},
		{"127.0.0.1", "127.0.0.1"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"XN--BCHER-KVA.example", "xn--bcher-kva.example"},
		{"_dmarc.example.com", "_dmarc.example.com"},
	} {
		got, err := NormalizeHost(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", ".", "example.com:443", "user@example.com", "a/b", "a b", "a..b", ".example.com", "fe80::1%eth0", "example.com.."} {
		if got, err := NormalizeHost(bad); err == nil {
			t.Errorf("NormalizeHost(%q) = %q, want an error", bad, got)
		}
	}
}

func TestMatchHost(t *testing.T) {
	for _, c := range []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "EXAMPLE.com.", true},
		{"example.com", "www.example.com", false},
		{"*.example.com", "www.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "evil-example.com", false},
		{"*.example.com", "example.com.evil.net", false},
		{"*.example.com", "wwwexample.com", false},
		{"*.Example.COM.", "api.example.com", true},
		{"registry.npmjs.org", "registry.npmjs.org.evil.net", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.1", "127.0.0.2", false},
		{"*.0.0.1", "127.0.0.1", false},
		{"::1", "[::1]", true},
		{"bücher.example", "xn--bcher-kva.example", true},
		{"*.bücher.example", "www.xn--bcher-kva.example", true},
		// A port is never part of a host: neither side matches with one.
		{"example.com", "example.com:443", false},
		{"example.com:443", "example.com", false},
		{"", "example.com", false},
		{"*", "example.com", false},
	} {
		if got := MatchHost(c.pattern, c.host); got != c.want {
			t.Errorf("MatchHost(%q, %q) = %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
}

func TestCheckHost(t *testing.T) {
	c, err := NewChecker(Config{Workspace: "/w", Home: "/h", Mode: ModeBypass,
		AllowedDomains: []string{"registry.npmjs.org", "*.example.com"},
		Rules: Rules{
			Allow: []string{"WebFetch(domain:go.dev)", "WebFetch(domain:bad.example.com)", "WebFetch"},
			Ask:   []string{"WebFetch(domain:ask.go.dev)"},
			Deny:  []string{"WebFetch(domain:bad.example.com)", "WebFetch(domain:*.evil.dev)"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host string
		want Behavior
		sugg string
	}{
		{"registry.npmjs.org", Allow, ""},
		{"Registry.NPMJS.org.", Allow, ""},
		{"api.example.com", Allow, ""},
		{"go.dev", Allow, ""},
		// deny rules hold over allowedDomains and allow rules
		{"bad.example.com", Deny, ""},
		{"x.evil.dev", Deny, ""},
		{"ask.go.dev", Ask, "WebFetch(domain:ask.go.dev)"},
		// a plain WebFetch rule (every fetch) is not a network grant, nor is bypass mode
		{"evil-example.com", Ask, "WebFetch(domain:evil-example.com)"},
		{"example.com", Ask, "WebFetch(domain:example.com)"},
		{"10.0.0.1", Ask, "WebFetch(domain:10.0.0.1)"},
		{"a b", Deny, ""},
	} {
		d := c.CheckHost(tc.host)
		if d.Behavior != tc.want {
			t.Errorf("CheckHost(%q) = %s (%s), want %s", tc.host, d.Behavior, d.Reason, tc.want)
			continue
		}
		if tc.want == Ask && (len(d.Suggestions) != 1 || d.Suggestions[0] != tc.sugg) {
			t.Errorf("CheckHost(%q) suggestions %v, want %s", tc.host, d.Suggestions, tc.sugg)
		}
	}
	// "always" for a host: the rule it writes lets it through afterwards.
	if err := c.AllowAlways(HostRule("example.com")); err != nil {
		t.Fatal(err)
	}
	if d := c.CheckHost("example.com"); d.Behavior != Allow {
		t.Errorf("after AllowAlways: %s (%s)", d.Behavior, d.Reason)
	}
}
