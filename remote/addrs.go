package remote

import (
	"net"
	"strings"
)

// Unspecified reports whether host (an address, without port) is every
// address of the machine: 0.0.0.0 or ::.
func Unspecified(host string) bool {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsUnspecified()
}

// InterfaceAddrs are the addresses other machines reach this one at when
// it listens on host: for 0.0.0.0, the IPv4 addresses of its interfaces
// that are up (loopback and link-local left out); for ::, their IPv6
// addresses too. For any other host, none: the server answers as host
// itself. A server on every address answers Host headers naming these
// (the DNS-rebinding guard still refuses any other name), and prints a
// URL for each.
func InterfaceAddrs(host string) []string {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil || !ip.IsUnspecified() {
		return nil
	}
	v6 := ip.To4() == nil
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var out []string
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok || !n.IP.IsGlobalUnicast() || (n.IP.To4() == nil && !v6) {
				continue
			}
			out = append(out, n.IP.String())
		}
	}
	return out
}
