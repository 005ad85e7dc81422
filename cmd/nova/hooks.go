package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/hooks"
)

// describeHooks writes what nova doctor's hooks section and the TUI's
// /hooks show: each configured hook under its event with what it runs and
// the file it comes from, then the hooks of project files left out
// because the folder is not trusted.
func describeHooks(w io.Writer, cfg *hooks.Config, ignored []config.IgnoredSetting, workdir, home string) {
	cfg.Describe(w, func(p string) string { return displayPath(p, workdir, home) })
	for _, ig := range ignored {
		if ig.Setting == "hooks" {
			fmt.Fprintf(w, "  ignored, this folder is not trusted (run nova trust to apply them): %s in %s\n", ig.Value, displayPath(ig.File, workdir, home))
		}
	}
	if cfg.Len() > 0 {
		fmt.Fprintf(w, "  Hook commands run as you, outside the sandbox, with your permissions (docs/hooks.md).\n")
	}
}

// HookReport implements tui.HookList (/hooks).
func (b *interactiveBackend) HookReport() string {
	rt := b.runtime()
	var sb strings.Builder
	fmt.Fprintf(&sb, "Hooks (%d):\n", rt.Hooks.Len())
	describeHooks(&sb, rt.Hooks, rt.Ignored, rt.Workdir, rt.Home)
	return sb.String()
}
