package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// bridgeInside is where bwrap shows the bridge's executable inside the
// sandbox: under the private /tmp, so that the real one can live anywhere
// (a build directory under /tmp, which the private /tmp hides).
const bridgeInside = "/tmp/.nova-sandbox-bridge"

// checkHosts checks the filtered network's part of cfg for backend.
func checkHosts(cfg Config, backend string) error {
	if cfg.Hosts == nil {
		return nil
	}
	if cfg.Network {
		return errors.New("sandbox: the network is either open (Network) or filtered (Hosts), not both")
	}
	if backend != BackendBwrap {
		return nil
	}
	if cfg.Bridge == "" {
		return errors.New("sandbox: a filtered network needs the bridge's executable (Config.Bridge)")
	}
	if !filepath.IsAbs(cfg.Bridge) {
		return fmt.Errorf("sandbox: the bridge's executable %q is not an absolute path", cfg.Bridge)
	}
	if fi, err := os.Stat(cfg.Bridge); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("sandbox: the bridge's executable %s: not a file (%v)", cfg.Bridge, err)
	}
	return nil
}

// Filtered reports whether commands reach the network through nova's
// proxy (Config.Hosts) rather than all of it or none.
func (s *Sandbox) Filtered() bool { return s.hosts != nil }

// bwrapNet is the network part of bwrap's command line: the cut network
// namespace, and with a filtered network the bridge's executable, shown
// read-only at bridgeInside.
func bwrapNet(s *Sandbox) []string {
	if s.network {
		return nil
	}
	args := []string{"--unshare-net"}
	if s.hosts != nil {
		args = append(args, "--ro-bind", s.bridge, bridgeInside)
	}
	return args
}

// confineSandboxExec rewrites cmd for sandbox-exec. With a filtered network
// there is no namespace to bridge into: the proxy listens on a loopback
// port of its own for this command, the profile lets the command reach that
// port alone, and the proxy variables point at it.
func (s *Sandbox) confineSandboxExec(cmd *exec.Cmd, bin, dir string, decide HostDecider) (release func(), err error) {
	port := 0
	release = func() {}
	if s.hosts != nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("sandbox: network proxy: %w", err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go s.proxy.serve(c, decide)
			}
		}()
		port = ln.Addr().(*net.TCPAddr).Port
		release = func() { ln.Close() }
		env := cmd.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(withoutProxyEnv(env), proxyEnv("127.0.0.1:"+strconv.Itoa(port))...)
	}
	cmd.Path, cmd.Args = bin, sandboxExecArgv(s, cmd.Args, dir, port)
	return release, nil
}
