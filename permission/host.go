package permission

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// hostProfile turns a host name into the ASCII form it is looked up by
// (IDNA, UTS #46 non-transitional, as browsers do), so that a pattern and
// a request spelling the same name differently (Unicode or punycode, upper
// or lower case) compare equal. Underscores stay allowed: real host names
// carry them (_dmarc, some internal services).
var hostProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false), idna.BidiRule())

// NormalizeHost returns host as the network policy compares it: lower
// case, in ASCII (IDNA), without the trailing dot of a fully qualified
// name and without the brackets of an IPv6 literal. host carries no port.
// A host that is no host name or IP literal (empty, with a port, a path,
// userinfo or spaces) is an error, so that a request can never be matched
// on a part of what it names.
func NormalizeHost(host string) (string, error) {
	h := strings.TrimSuffix(host, ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", errors.New("empty host")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("host %q: an address with a zone is not a host", host)
		}
		return a.Unmap().String(), nil
	}
	if strings.ContainsAny(h, ":/@?#[]\\ \t%") {
		return "", fmt.Errorf("host %q is not a host name", host)
	}
	a, err := hostProfile.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host %q: %w", host, err)
	}
	a = strings.ToLower(a)
	if a == "" || strings.HasPrefix(a, ".") || strings.Contains(a, "..") || strings.HasSuffix(a, ".") {
		return "", fmt.Errorf("host %q is not a host name", host)
	}
	return a, nil
}

// ValidHostPattern says why pattern cannot name hosts, or nil: a host name,
// an IP literal, or "*." and a domain for every name below it.
func ValidHostPattern(pattern string) error {
	_, err := normalizePattern(pattern)
	return err
}

// normalizePattern is NormalizeHost for a pattern, keeping its "*.".
func normalizePattern(pattern string) (string, error) {
	rest, wild := strings.CutPrefix(strings.TrimSpace(pattern), "*.")
	h, err := NormalizeHost(rest)
	if err != nil {
		return "", fmt.Errorf("host pattern %q: want a host (example.com), an IP address or *.example.com: %w", pattern, err)
	}
	if wild {
		if _, err := netip.ParseAddr(h); err == nil {
			return "", fmt.Errorf("host pattern %q: *. names the host names under a domain, not addresses", pattern)
		}
		return "*." + h, nil
	}
	return h, nil
}

// MatchHost reports whether pattern covers host: an exact name or address,
// or with "*." every name below the domain (not the domain itself, and
// not evil-example.com for *.example.com). Both sides are normalized
// first; a pattern or host that does not normalize matches nothing.
func MatchHost(pattern, host string) bool {
	p, err := normalizePattern(pattern)
	if err != nil {
		return false
	}
	h, err := NormalizeHost(host)
	if err != nil {
		return false
	}
	if d, ok := strings.CutPrefix(p, "*."); ok {
		if _, err := netip.ParseAddr(h); err == nil {
			return false
		}
		return strings.HasSuffix(h, "."+d)
	}
	return h == p
}

// HostRule is the rule "allow always" writes for a host a person let a
// sandboxed command reach: Claude Code's WebFetch domain rule, which
// WebFetch honours too.
func HostRule(host string) string { return "WebFetch(domain:" + host + ")" }

// CheckHost decides whether a sandboxed command may reach host through
// nova's network proxy: a WebFetch domain deny rule refuses it, an ask
// rule asks, the settings' allowed domains (Config.AllowedDomains) or a
// WebFetch domain allow rule let it through, and anything else asks, with
// HostRule as the "always" suggestion. A host that does not normalize is
// refused. Modes do not enter into it: the network is the sandbox's floor,
// not a tool call.
func (c *Checker) CheckHost(host string) Decision {
	h, err := NormalizeHost(host)
	if err != nil {
		return Decision{Behavior: Deny, Layer: LayerSandbox, Reason: err.Error()}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	match := func(rules []Rule) (Rule, bool) {
		for _, r := range rules {
			if r.Tool == "WebFetch" && r.Spec != "" && MatchHost(strings.TrimPrefix(r.Spec, "domain:"), h) {
				return r, true
			}
		}
		return Rule{}, false
	}
	if r, ok := match(c.deny); ok {
		return Decision{Behavior: Deny, Layer: LayerRule, Rule: r.Raw, Reason: fmt.Sprintf("%s denies network requests to %s", r.Raw, h)}
	}
	if r, ok := match(c.ask); ok {
		return Decision{Behavior: Ask, Layer: LayerRule, Rule: r.Raw, Reason: "Network request outside the sandbox: " + h, Suggestions: []string{HostRule(h)}}
	}
	for _, p := range c.cfg.AllowedDomains {
		if MatchHost(p, h) {
			return Decision{Behavior: Allow, Layer: LayerSandbox, Reason: fmt.Sprintf("%s is in sandbox.network.allowedDomains (%s)", h, p)}
		}
	}
	if r, ok := match(c.allow); ok {
		return Decision{Behavior: Allow, Layer: LayerRule, Rule: r.Raw, Reason: fmt.Sprintf("%s allows %s", r.Raw, h)}
	}
	return Decision{Behavior: Ask, Layer: LayerSandbox, Reason: "Network request outside the sandbox: " + h, Suggestions: []string{HostRule(h)}}
}
