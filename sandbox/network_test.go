package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDarwinProfileProxyOnly(t *testing.T) {
	t.Parallel()
	p := darwinProfile(seatbeltInput{writable: []string{"/w"}, proxyPort: 41234}).profile
	deny := strings.Index(p, "(deny network*)")
	allow := strings.Index(p, `(allow network-outbound (remote ip "localhost:41234"))`)
	if deny < 0 || allow < deny {
		t.Fatalf("profile does not cut the network and then allow the proxy's port alone:\n%s", p)
	}
	if strings.Count(p, "(allow network") != 1 || strings.Contains(p, mDNSResponder) {
		t.Errorf("profile allows more than the proxy:\n%s", p)
	}
	// Without the proxy, the profile is what it was.
	if q := darwinProfile(seatbeltInput{writable: []string{"/w"}}).profile; strings.Contains(q, "localhost:") {
		t.Errorf("no proxy, yet:\n%s", q)
	}
}

func TestBwrapArgvBridge(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	exe := filepath.Join(root, "nova")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Workspace: ws, Hosts: HostsAllowed(nil), Probed: fakeBwrap()}); err == nil || !strings.Contains(err.Error(), "Bridge") {
		t.Errorf("filtered network without a bridge: %v", err)
	}
	if _, err := New(Config{Workspace: ws, Network: true, Hosts: HostsAllowed(nil), Bridge: exe, Probed: fakeBwrap()}); err == nil {
		t.Error("open and filtered network at once was accepted")
	}
	sb, err := New(Config{Workspace: ws, Hosts: HostsAllowed(nil), Bridge: exe, Probed: fakeBwrap()})
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := confine(t, sb, ws, "curl", "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	a := cmd.Args
	if indexPair(a, "--ro-bind", exe, bridgeInside) < 0 || !slices.Contains(a, "--unshare-net") {
		t.Errorf("argv lacks the bridge's bind or the cut network: %q", a)
	}
	i := slices.Index(a, BridgeArg)
	if i < 1 || a[i-1] != bridgeInside || a[i+2] != "--" || !slices.Equal(a[i+3:], []string{"curl", "https://example.com/"}) {
		t.Errorf("the command does not run under the bridge: %q", a)
	}
	if len(cmd.ExtraFiles) == 0 {
		t.Error("no control socket passed")
	}
}
