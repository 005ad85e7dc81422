package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// seatbelt is a generated sandbox-exec profile and the parameters it reads.
// Paths travel as -D parameters rather than being spliced into the profile,
// so no path, however odd its characters, can change the profile's meaning.
type seatbelt struct {
	profile string
	params  []string // "NAME=value", in order, for -D
}

// seatbeltInput is what the profile depends on; all paths absolute and
// real (sandbox-exec matches /private/tmp, not /tmp).
type seatbeltInput struct {
	writable  []string
	tempDirs  []string
	protected []string
	// pinned paths may not themselves be written, renamed or removed,
	// though what is inside them may be (.git).
	pinned []string
	// masked paths can be neither read nor written (credentials).
	masked  []string
	network bool
	// proxyPort, when set (with network false), is the loopback port of
	// nova's filtering proxy: the one place the command may connect to.
	proxyPort int
	// unixSockets allows connecting to Unix sockets.
	unixSockets bool
}

// mDNSResponder is the socket macOS resolves host names through; with the
// network allowed, closing it would break every name lookup.
const mDNSResponder = "/private/var/run/mDNSResponder"

// darwinProfile generates the sandbox-exec profile. It is a pure function so
// it can be tested anywhere. Everything is allowed except writing, reading
// the masked paths, Unix sockets and the network: writes are denied, then
// allowed in the writable and temp dirs and a few devices, then denied again
// in the protected paths; the masked paths are denied last. In SBPL the last
// matching rule wins, so the order is the policy.
func darwinProfile(in seatbeltInput) seatbelt {
	var b strings.Builder
	var params []string
	param := func(prefix string, i int, value string) string {
		name := fmt.Sprintf("%s_%d", prefix, i)
		params = append(params, name+"="+value)
		return fmt.Sprintf("(subpath (param %q))", name)
	}

	b.WriteString("(version 1)\n")
	b.WriteString("(allow default)\n")
	b.WriteString("(deny file-write*)\n")
	b.WriteString("(allow file-write*\n")
	for i, w := range in.writable {
		b.WriteString("  " + param("WRITABLE", i, w) + "\n")
	}
	for i, t := range in.tempDirs {
		b.WriteString("  " + param("TEMP", i, t) + "\n")
	}
	// Shells and most tools write to these; none of them reach a file.
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/dtracehelper", "/dev/ptmx"} {
		fmt.Fprintf(&b, "  (literal %q)\n", dev)
	}
	b.WriteString("  (regex #\"^/dev/tty\")\n")
	b.WriteString("  (regex #\"^/dev/fd/\"))\n")
	if len(in.protected)+len(in.pinned) > 0 {
		b.WriteString("(deny file-write*\n")
		for i, p := range in.protected {
			b.WriteString("  " + param("PROTECTED", i, p) + "\n")
		}
		for i, p := range in.pinned {
			name := fmt.Sprintf("PINNED_%d", i)
			params = append(params, name+"="+p)
			fmt.Fprintf(&b, "  (literal (param %q))\n", name)
		}
		b.WriteString(")\n")
	}
	switch {
	case !in.network && in.proxyPort > 0:
		// Only the proxy: it resolves names and judges hosts, so neither
		// mDNSResponder nor any other address is needed.
		b.WriteString("(deny network*)\n")
		fmt.Fprintf(&b, "(allow network-outbound (remote ip \"localhost:%d\"))\n", in.proxyPort)
		if in.unixSockets {
			b.WriteString("(allow network* (local unix-socket) (remote unix-socket))\n")
		}
	case !in.network:
		// Unix sockets too: the Docker socket or an ssh agent reach as far
		// as the network does.
		b.WriteString("(deny network*)\n")
		if in.unixSockets {
			b.WriteString("(allow network* (local unix-socket) (remote unix-socket))\n")
		}
	case !in.unixSockets:
		b.WriteString("(deny network-outbound (remote unix-socket))\n")
		fmt.Fprintf(&b, "(allow network-outbound (remote unix-socket (path-literal %q)))\n", mDNSResponder)
	}
	if len(in.masked) > 0 {
		b.WriteString("(deny file-read* file-write*\n")
		for i, m := range in.masked {
			b.WriteString("  " + param("MASKED", i, m) + "\n")
		}
		b.WriteString(")\n")
	}
	return seatbelt{profile: b.String(), params: params}
}

// sandboxExecArgv builds the sandbox-exec command line for argv in dir
// (proxyPort: the filtering proxy's, or 0).
// sandbox-exec cannot change directory, so a tiny sh does it inside the
// sandbox and then execs the command, keeping argv intact.
func sandboxExecArgv(s *Sandbox, argv []string, dir string, proxyPort int) []string {
	var protected, pinned []string
	for _, w := range s.writable {
		for _, name := range protectedNames() {
			protected = append(protected, filepath.Join(w, name))
		}
		// Renaming .git away would take the denials on .git/hooks and
		// .git/config with it (they match paths, not files), and a .git
		// file (worktree) could be pointed at a new git directory. This
		// also stops `git init` at the top of a writable directory.
		pinned = append(pinned, filepath.Join(w, ".git"))
	}
	// Seatbelt matches paths, so a missing entry is denied as well as an
	// existing one and needs no placeholder.
	git := planGit(s.writable, s.home)
	for _, e := range git.entries {
		protected = append(protected, e.path)
	}
	protected = append(protected, git.roWhole...)
	pinned = append(append(pinned, git.pins...), git.links...)
	// A mask is denied both as named and as what it resolves to, and
	// whether or not it exists yet.
	var masked []string
	for _, m := range s.masks {
		masked = append(masked, m)
		if real := realOrSelf(m); real != m && !slices.ContainsFunc(s.writable, func(w string) bool { return within(w, real) }) {
			masked = append(masked, real)
		}
	}
	sb := darwinProfile(seatbeltInput{
		writable:    s.Writable(),
		tempDirs:    s.tempDirs,
		protected:   dedup(protected),
		pinned:      dedup(pinned),
		masked:      masked,
		network:     s.network,
		proxyPort:   proxyPort,
		unixSockets: s.allowUnix,
	})
	args := []string{s.bin, "-p", sb.profile}
	for _, p := range sb.params {
		args = append(args, "-D", p)
	}
	args = append(args, "--", "/bin/sh", "-c", `cd -- "$1" || exit 126; shift; exec "$@"`, "nova-sandbox", dir)
	return append(args, argv...)
}

// dedup drops repeated paths, keeping the first of each.
func dedup(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// darwinTempDirs lists the temp directories a sandboxed command may write:
// /private/tmp and the per-user temp directory ($TMPDIR, under
// /private/var/folders), with its cache sibling, which many tools use.
func darwinTempDirs() []string {
	dirs := []string{"/private/tmp", "/private/var/tmp"}
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return dirs
	}
	if strings.HasPrefix(tmp, "/private/var/folders/") && filepath.Base(tmp) == "T" {
		// /private/var/folders/xx/yyyy/T: the parent holds T (temp), C
		// (cache) and 0, all private to this user.
		tmp = filepath.Dir(tmp)
	}
	if tmp != "/private/tmp" && tmp != "/private/var/tmp" {
		dirs = append(dirs, tmp)
	}
	return dirs
}
