package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// NetworkSetting is "sandbox.network": true (every host), false (none), or
// Claude Code's object {"allowedDomains": [...]}, which sends sandboxed
// commands through nova's filtering proxy: the hosts listed (and those of
// WebFetch(domain:...) allow rules) go through, others ask.
type NetworkSetting struct {
	// All is the true / false form; nil for the object form.
	All *bool
	// AllowedDomains are the object form's host patterns (example.com,
	// *.example.com, an IP address).
	AllowedDomains []string
}

// networkObject is the object form as it is written.
type networkObject struct {
	AllowedDomains []string `json:"allowedDomains"`
}

// UnmarshalJSON reads either form.
func (n *NetworkSetting) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var o networkObject
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return fmt.Errorf("sandbox.network: want true, false or {\"allowedDomains\": [\"example.com\", \"*.example.com\"]}: %v", err)
		}
		*n = NetworkSetting{AllowedDomains: o.AllowedDomains}
		if n.AllowedDomains == nil {
			n.AllowedDomains = []string{}
		}
		return nil
	}
	var all bool
	if err := json.Unmarshal(b, &all); err != nil {
		return errors.New("sandbox.network: want true, false or {\"allowedDomains\": [\"example.com\", \"*.example.com\"]}")
	}
	*n = NetworkSetting{All: &all}
	return nil
}

// MarshalJSON writes the form it was read in.
func (n NetworkSetting) MarshalJSON() ([]byte, error) {
	if n.All != nil {
		return json.Marshal(*n.All)
	}
	return json.Marshal(networkObject{AllowedDomains: n.AllowedDomains})
}

// Filtered says the setting sends commands through the filtering proxy.
func (n *NetworkSetting) Filtered() bool { return n != nil && n.All == nil }

// Everything says the setting lets commands reach every host directly.
func (n *NetworkSetting) Everything() bool { return n != nil && n.All != nil && *n.All }

// Describe says in a few words what the setting does, for nova doctor.
func (n *NetworkSetting) Describe() string {
	switch {
	case n.Everything():
		return "every host (sandbox.network: true)"
	case n.Filtered() && len(n.AllowedDomains) == 0:
		return "through nova's proxy; no allowed domains (every host is asked about; refused in print mode)"
	case n.Filtered():
		return "through nova's proxy; allowed domains: " + strings.Join(n.AllowedDomains, ", ") + " (other hosts are asked about; refused in print mode)"
	}
	return "none (set sandbox.network to {\"allowedDomains\": [...]} to reach some hosts)"
}

// check says which allowed domain is no host pattern.
func (n *NetworkSetting) check(at func(string) string) error {
	if n == nil {
		return nil
	}
	for _, d := range n.AllowedDomains {
		if err := permission.ValidHostPattern(d); err != nil {
			return fmt.Errorf("settings %s: sandbox.network.allowedDomains: %w", at(d), err)
		}
	}
	return nil
}

// mergeNetwork folds a file's sandbox.network into the merged one: the
// last file's form wins, the allowed domains of every file add up.
func (m *Settings) mergeNetwork(from *NetworkSetting, path string) {
	if from == nil {
		return
	}
	var domains []string
	if m.Sandbox.Network != nil {
		domains = m.Sandbox.Network.AllowedDomains
	}
	merged := &NetworkSetting{All: from.All, AllowedDomains: appendNew(append([]string(nil), domains...), from.AllowedDomains)}
	m.Sandbox.Network = merged
	m.Sources["sandbox.network"] = path
}

// takeNetwork removes a project file's network grant (true, or the object
// form with the hosts it lets through) and says what it granted; false,
// which cuts the network, stays.
func takeNetwork(s *Settings) string {
	n := s.Sandbox.Network
	switch {
	case n == nil:
		return ""
	case n.All != nil:
		if !*n.All {
			return ""
		}
		s.Sandbox.Network = nil
		return "true"
	}
	s.Sandbox.Network = nil
	return "allowedDomains: " + strings.Join(n.AllowedDomains, ", ")
}
