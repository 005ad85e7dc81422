package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/plugins"
)

// pluginOptions are one nova plugin subcommand's: what it acts on and
// where it writes.
type pluginOptions struct {
	io *IOStreams
	// op names the subcommand ("install", "marketplace add", ...).
	op string
	// arg is its argument: a plugin id, a marketplace name or source, a
	// path; "" for none.
	arg string
	// scopeFlag is --scope, scope what it says.
	scopeFlag string
	scope     plugins.Scope
}

// newPluginCmd is nova plugin: Claude Code's plugin commands.
func newPluginCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "plugin",
		Aliases: []string{"plugins"},
		Short:   "Install, enable and list Claude Code plugins and their marketplaces",
		Long: `Plugins bring skills, commands (/plugin:command), agents, hooks and MCP
servers, in Claude Code's format. nova installs them into NOVA_HOME/plugins
from marketplaces (a git repository or a directory with
.claude-plugin/marketplace.json), and loads those Claude Code installed
(~/.claude/plugins) as they are. See docs/plugins.md.

  nova plugin marketplace add https://github.com/acme/plugins.git
  nova plugin install guard-kit@acme-plugins
  nova plugin list
  nova plugin disable guard-kit@acme-plugins
  nova --plugin-dir ./my-plugin        load a plugin from a directory for one run`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown command %q for \"nova plugin\"; want install, uninstall, enable, disable, update, list, validate or marketplace", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	for _, c := range []struct {
		use, short string
		scoped     bool
	}{
		{"install <name@marketplace>", "Install a plugin from a marketplace and turn it on", true},
		{"uninstall <name@marketplace>", "Remove a plugin nova installed", false},
		{"enable <name@marketplace>", "Turn an installed plugin on", true},
		{"disable <name@marketplace>", "Turn a plugin off (one Claude Code installed too)", true},
		{"update <name@marketplace>", "Fetch the plugin's marketplace again and install the plugin as it is now", false},
		{"list", "List the plugins installed (by nova and by Claude Code) and whether each is on", false},
		{"validate <path>", "Read a plugin or marketplace directory as nova loads it and say what it supplies", false},
	} {
		cmd.AddCommand(newPluginSubCmd(f, "", c.use, c.short, c.scoped, nil))
	}
	market := &cobra.Command{
		Use:   "marketplace",
		Short: "Add, list, update and remove plugin marketplaces",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown command %q for \"nova plugin marketplace\"; want add, list, update or remove", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	for _, c := range []struct{ use, short string }{
		{"add <git URL | owner/repo | directory>", "Add a marketplace: a git repository (cloned into NOVA_HOME/plugins) or a local directory"},
		{"list", "List the marketplaces nova knows: its own, Claude Code's, and those settings files name"},
		{"update [name]", "Fetch a marketplace (every one, without a name) again"},
		{"remove <name>", "Forget a marketplace and uninstall the plugins nova installed from it"},
	} {
		market.AddCommand(newPluginSubCmd(f, "marketplace ", c.use, c.short, false, nil))
	}
	cmd.AddCommand(market)
	return cmd
}

// newPluginSubCmd is one subcommand. runF, when not nil, is called with
// the parsed and checked options instead of running them (tests).
func newPluginSubCmd(f *Factory, parent, use, short string, scoped bool, runF func(*pluginOptions) error) *cobra.Command {
	name, rest, _ := strings.Cut(use, " ")
	opts := &pluginOptions{io: f.IOStreams, op: parent + name}
	needs := strings.HasPrefix(rest, "<")
	optional := strings.HasPrefix(rest, "[")
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 1, len(args) == 1 && !needs && !optional:
				return usageErr("nova plugin %s: too many arguments (want %s)", opts.op, strings.TrimSpace("nova plugin "+opts.op+" "+rest))
			case len(args) == 0 && needs:
				return usageErr("nova plugin %s: want %s", opts.op, rest)
			case len(args) == 1:
				opts.arg = args[0]
			}
			if scoped {
				sc, err := plugins.ParseScope(opts.scopeFlag)
				if err != nil {
					return usageErr("--scope: %v", err)
				}
				opts.scope = sc
			}
			if runF != nil {
				return runF(opts)
			}
			return runPlugin(cmd.Context(), opts)
		},
	}
	if scoped {
		cmd.Flags().StringVarP(&opts.scopeFlag, "scope", "s", string(plugins.ScopeUser),
			"where to turn it on or off: user (NOVA_HOME/settings.json), project (.nova/settings.json) or local (.nova/settings.local.json)")
	}
	return cmd
}

// pluginsHere is the plugins of the streams' person and workspace, weighed
// by the settings as a session here would load them.
func pluginsHere(s *IOStreams) (*plugins.Manager, error) {
	novaHome, workdir, err := locate(s)
	if err != nil {
		return nil, err
	}
	ts, err := live.ResolveTrust(novaHome, workdir, false)
	if err != nil {
		return nil, failure(err)
	}
	st, _, err := config.LoadSettingsLayers(novaHome, workdir, s.Home, ts.Trusted, config.SettingsLayers{ClaudeHome: config.ClaudeHome(s.Getenv, s.Home)})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return live.PluginManager(live.Options{NovaHome: novaHome, Workdir: workdir, Home: s.Home, Getenv: s.Getenv}, st), nil
}

// runPlugin runs one subcommand.
func runPlugin(ctx context.Context, o *pluginOptions) error {
	m, err := pluginsHere(o.io)
	if err != nil {
		return err
	}
	w := o.io.Out
	switch o.op {
	case "install":
		rec, err := m.Install(ctx, o.arg, o.scope)
		if err != nil {
			return pluginErr(err)
		}
		fmt.Fprintf(w, "Installed %s %s into %s; it is on (%s) from the next session.\n", o.arg, rec.Version, rec.InstallPath, m.SettingsFile(o.scope))
	case "uninstall":
		if err := m.Uninstall(ctx, o.arg); err != nil {
			return pluginErr(err)
		}
		fmt.Fprintf(w, "Uninstalled %s.\n", o.arg)
	case "enable", "disable":
		on := o.op == "enable"
		if err := m.SetEnabled(o.arg, o.scope, on); err != nil {
			return pluginErr(err)
		}
		fmt.Fprintf(w, "%s %s in %s, from the next session.\n", map[bool]string{true: "Enabled", false: "Disabled"}[on], o.arg, m.SettingsFile(o.scope))
	case "update":
		before, after, err := m.Update(ctx, o.arg)
		if err != nil {
			return pluginErr(err)
		}
		if before.Version == after.Version && before.GitCommitSha == after.GitCommitSha {
			fmt.Fprintf(w, "%s is up to date (%s).\n", o.arg, after.Version)
		} else {
			fmt.Fprintf(w, "Updated %s from %s to %s, from the next session.\n", o.arg, before.Version, after.Version)
		}
	case "list":
		return listPlugins(o, m)
	case "validate":
		return validatePlugin(o)
	case "marketplace add":
		wd, err := o.io.getwd()
		if err != nil {
			return usageErr("working directory: %v", err)
		}
		src, err := plugins.ParseSource(o.arg, wd)
		if err != nil {
			return usageErr("%v", err)
		}
		name, err := m.AddMarketplace(ctx, src)
		if err != nil {
			return pluginErr(err)
		}
		fmt.Fprintf(w, "Added marketplace %s (%s). Its plugins: nova plugin marketplace list; install one with nova plugin install <name>@%s.\n", name, src, name)
	case "marketplace list":
		return listMarketplaces(o, m)
	case "marketplace update":
		names, err := m.UpdateMarketplace(ctx, o.arg)
		if err != nil {
			return pluginErr(err)
		}
		if len(names) == 0 {
			fmt.Fprintln(w, "nova has no marketplace to update (nova plugin marketplace add adds one).")
			return nil
		}
		fmt.Fprintf(w, "Updated %s. Installed plugins change with nova plugin update <name@marketplace>.\n", strings.Join(names, ", "))
	case "marketplace remove":
		removed, err := m.RemoveMarketplace(ctx, o.arg)
		if err != nil {
			return pluginErr(err)
		}
		fmt.Fprintf(w, "Removed marketplace %s.\n", o.arg)
		if len(removed) > 0 {
			fmt.Fprintf(w, "Uninstalled its plugins: %s.\n", strings.Join(removed, ", "))
		}
	default:
		return usageErr("nova plugin %s: no such command", o.op)
	}
	return nil
}

// pluginErr is a plugin command's failure: the person's to fix (exit 2)
// unless it is the machine's.
func pluginErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return failure(err)
	}
	return usageErr("%v", err)
}

// listPlugins is nova plugin list.
func listPlugins(o *pluginOptions, m *plugins.Manager) error {
	installs, warns, err := m.Installs()
	if err != nil {
		return failure(err)
	}
	on, by := m.Enabled()
	w := o.io.Out
	for _, wmsg := range warns {
		fmt.Fprintln(o.io.ErrOut, "nova: "+wmsg)
	}
	if len(installs) == 0 {
		fmt.Fprintln(w, "No plugins installed. Add a marketplace (nova plugin marketplace add <source>) and install from it (nova plugin install <name@marketplace>).")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PLUGIN\tVERSION\tSTATE\tINSTALLED BY\tPATH")
		for _, in := range installs {
			state := "off"
			if v, ok := on[in.ID]; ok && v {
				state = "on (" + displayPath(by[in.ID], m.Workdir, m.Home) + ")"
			} else if ok {
				state = "off (" + displayPath(by[in.ID], m.Workdir, m.Home) + ")"
			}
			who := "nova"
			if in.Claude {
				who = "Claude Code"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.ID, in.Install.Version, state, who, in.Install.InstallPath)
		}
		if err := tw.Flush(); err != nil {
			return failure(err)
		}
	}
	have := map[string]bool{}
	for _, in := range installs {
		have[in.ID] = true
	}
	for _, id := range sortedIDs(on) {
		if on[id] && !have[id] {
			fmt.Fprintf(w, "%s is turned on (%s) but not installed.\n", id, displayPath(by[id], m.Workdir, m.Home))
		}
	}
	return nil
}

func sortedIDs(m map[string]bool) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// listMarketplaces is nova plugin marketplace list.
func listMarketplaces(o *pluginOptions, m *plugins.Manager) error {
	all, warns, err := m.Marketplaces()
	if err != nil {
		return failure(err)
	}
	for _, wmsg := range warns {
		fmt.Fprintln(o.io.ErrOut, "nova: "+wmsg)
	}
	w := o.io.Out
	if len(all) == 0 {
		fmt.Fprintln(w, "No marketplaces. nova plugin marketplace add <git URL | owner/repo | directory> adds one.")
		return nil
	}
	for _, mk := range all {
		var state string
		switch {
		case mk.Root == "" && mk.Project:
			state = "named by " + displayPath(mk.DeclaredIn, m.Workdir, m.Home) + ", not added (nova plugin marketplace add to use it)"
		case mk.Root == "":
			state = "named by " + displayPath(mk.DeclaredIn, m.Workdir, m.Home) + ", fetched at the first install"
		case mk.Claude:
			state = "Claude Code's (" + mk.Root + ")"
		default:
			state = "nova's (" + mk.Root + ")"
		}
		fmt.Fprintf(w, "%s\n  source: %s\n  %s\n", mk.Name, mk.Source, state)
		if mk.Root == "" {
			continue
		}
		cat, err := plugins.ReadCatalog(mk.Root)
		if err != nil {
			fmt.Fprintf(w, "  catalogue: %v\n", err)
			continue
		}
		for _, e := range cat.Plugins {
			line := "  - " + e.Name + "@" + mk.Name
			if e.Version != "" {
				line += " " + e.Version
			}
			if e.Description != "" {
				line += ": " + e.Description
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

// validatePlugin is nova plugin validate: the directory as a session
// would load it, or a marketplace's catalogue.
func validatePlugin(o *pluginOptions) error {
	w := o.io.Out
	if cat, err := plugins.ReadCatalog(o.arg); err == nil {
		fmt.Fprintf(w, "Marketplace %s: %d plugin(s)\n", cat.Name, len(cat.Plugins))
		for _, e := range cat.Plugins {
			fmt.Fprintf(w, "  - %s\n", e.Name)
		}
		return nil
	}
	p, err := plugins.Load(o.arg, "", plugins.OriginFlag)
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(w, "Plugin %s %s (%s)\n", p.Name, p.Version, p.Root)
	fmt.Fprintf(w, "  supplies: %s\n", live.PluginSupplies(p))
	for _, wmsg := range p.Warnings {
		fmt.Fprintln(w, "  warning: "+wmsg)
	}
	if len(p.Warnings) > 0 {
		return usageErr("%s: %d part(s) cannot be loaded (see above)", o.arg, len(p.Warnings))
	}
	return nil
}
