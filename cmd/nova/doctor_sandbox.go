package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/permission"
)

// printSandboxPolicy shows what a sandboxed command may write, what stays
// read-only inside that and why, its private caches, its network and the
// commands that run outside it.
func printSandboxPolicy(w io.Writer, tr *live.Setup, workdir, home string) {
	sb := tr.Sandbox
	if sb == nil {
		return
	}
	fmt.Fprintf(w, "  writable:\n")
	for _, d := range sb.Writable() {
		fmt.Fprintf(w, "    %s\n", displayPath(d, workdir, home))
	}
	fmt.Fprintf(w, "  read-only inside them, existing or not (they run later, outside the sandbox):\n")
	fmt.Fprintf(w, "    .git/hooks, .git/config and what core.hooksPath and include.path name: git runs hooks and the programs its configuration names\n")
	for _, e := range permission.RunsLater() {
		fmt.Fprintf(w, "    %s: %s\n", e.Rel, e.Why)
	}
	if caches := sb.Caches(); len(caches) > 0 {
		fmt.Fprintf(w, "  caches (private to sandboxed commands; your own stay read-only, since what they hold runs later):\n")
		for _, c := range caches {
			fmt.Fprintf(w, "    %s: %s -> %s\n", c.Tool, c.Var, displayPath(c.Path, workdir, home))
		}
		for _, kv := range sb.Env() {
			if name, val, _ := strings.Cut(kv, "="); name == "GOPROXY" {
				fmt.Fprintf(w, "    go modules you already have: GOPROXY=%s\n", val)
			}
		}
	}
	fmt.Fprintf(w, "  temporary directory: %s\n", sb.TempDir())
	network := live.NetworkSummary(tr.Settings, sb.Filtered())
	fmt.Fprintf(w, "  network: %s\n", network)
	if ex := tr.Settings.Sandbox.ExcludedCommands; len(ex) > 0 {
		fmt.Fprintf(w, "  run outside the sandbox, each still checked (sandbox.excludedCommands): %s\n", strings.Join(ex, ", "))
	}
}
