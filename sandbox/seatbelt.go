package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
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
	pinned  []string
	network bool
}

// darwinProfile generates the sandbox-exec profile. It is a pure function so
// it can be tested anywhere. Everything is allowed except writing and the
// network: writes are denied, then allowed in the writable and temp dirs and
// a few devices, then denied again in the protected paths; in SBPL the last
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
	if !in.network {
		// Unix sockets too: the Docker socket or an ssh agent reach as far
		// as the network does.
		b.WriteString("(deny network*)\n")
	}
	return seatbelt{profile: b.String(), params: params}
}

// sandboxExecArgv builds the sandbox-exec command line for argv in dir.
// sandbox-exec cannot change directory, so a tiny sh does it inside the
// sandbox and then execs the command, keeping argv intact.
func sandboxExecArgv(s *Sandbox, argv []string, dir string) []string {
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
	sb := darwinProfile(seatbeltInput{
		writable:  s.writable,
		tempDirs:  s.tempDirs,
		protected: protected,
		pinned:    pinned,
		network:   s.network,
	})
	args := []string{s.bin, "-p", sb.profile}
	for _, p := range sb.params {
		args = append(args, "-D", p)
	}
	args = append(args, "--", "/bin/sh", "-c", `cd -- "$1" || exit 126; shift; exec "$@"`, "nova-sandbox", dir)
	return append(args, argv...)
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
