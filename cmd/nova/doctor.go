package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/plugins"
	"github.com/nova-dev/nova/sandbox"
	"github.com/nova-dev/nova/tools"
)

// doctorOptions are what nova doctor describes: the runtime these flags
// would build here.
type doctorOptions struct {
	io *IOStreams

	session buildOptions // the flags that change the profile
}

// newDoctorCmd is nova doctor. runF, when not nil, is called with the
// parsed and checked options instead of running them (tests).
func newDoctorCmd(f *Factory, runF func(*doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show the effective trust profile: providers, permission mode, settings, rules, hooks, sandbox",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.session.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(cmd.Context(), opts.io, opts.io.Out, opts.session)
		},
	}
	o := &opts.session
	cmd.Flags().StringVar(&o.permissionMode, "permission-mode", "", "show the profile under this mode")
	cmd.Flags().BoolVar(&o.sandbox, "sandbox", false, "show the profile with the sandbox forced on")
	cmd.Flags().BoolVar(&o.noSandbox, "no-sandbox", false, "show the profile with the sandbox off")
	cmd.Flags().BoolVar(&o.trust, "trust", false, "show the profile with this folder trusted for the run")
	return cmd
}

// runDoctor prints what nova would run with here: providers, the default
// model, settings files, permission mode and rules, hooks, and a real
// sandbox probe.
func runDoctor(ctx context.Context, s *IOStreams, w io.Writer, o buildOptions) error {
	novaHome, workdir, err := locate(s)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "nova %s\nNOVA_HOME:  %s\nWorkspace:  %s\n", version, novaHome, workdir)

	file, err := config.LoadFile(novaHome)
	if err != nil {
		return usageErr("%v", err)
	}
	provs := config.Providers(file, s.Getenv)
	fmt.Fprintf(w, "\nProviders (%d):\n", len(provs))
	if len(provs) == 0 {
		fmt.Fprintf(w, "  none\n\n%v\n", config.ErrNoProvider)
	}
	for _, p := range provs {
		key := "no key"
		if p.APIKey != "" {
			key = "key set"
		}
		base := p.BaseURL
		if base == "" {
			base = "default endpoint"
		}
		fmt.Fprintf(w, "  %-12s %-18s %s, %s (from %s)\n", p.Key, p.Type, base, key, p.Source)
	}
	// The settings' "model" (nova's or Claude Code's files) comes before
	// default_model, as a session chooses (live.Build); one no provider
	// has is skipped with a warning there, and said here.
	choice, choiceFrom := "", ""
	if s.Getenv("NOVA_MODEL") == "" {
		if m, from := live.SettingsModel(o.live(s, novaHome, workdir)); m != "" {
			if _, err := config.Select(provs, file, m, s.Getenv); err == nil {
				choice, choiceFrom = m, from
			} else if len(provs) > 0 {
				fmt.Fprintf(w, "  model setting %q of %s: not used, no provider here has it\n", m, displayPath(from, workdir, s.Home))
			}
		}
	}
	sel, selErr := config.Select(provs, file, choice, s.Getenv)
	switch {
	case len(provs) == 0:
	case selErr != nil:
		first, _, _ := strings.Cut(selErr.Error(), "\n")
		fmt.Fprintf(w, "  default model: %s\n", first)
	case sel.Model.Model == "":
		fmt.Fprintf(w, "  default model: the first that %s lists\n", sel.Provider.Key)
	default:
		fmt.Fprintf(w, "  default model: %s\n", sel.ID())
		if choiceFrom != "" {
			fmt.Fprintf(w, "    (the model setting %q of %s)\n", choice, displayPath(choiceFrom, workdir, s.Home))
		}
		if p, ok := file.PriceOf(sel); ok {
			fmt.Fprintf(w, "  prices: %s\n", p)
		} else {
			fmt.Fprintf(w, "  prices: unknown (give them in config.json to see the cost: %sconfiguration.md#prices)\n", config.DocsBase)
		}
	}

	// A doctor runs the sandbox for real, whatever an earlier probe said.
	o.freshProbe = true
	home := s.Home
	tr, err := live.LoadSetup(ctx, o.live(s, novaHome, workdir), "")
	if err != nil {
		return exitFor(err)
	}
	fmt.Fprintf(w, "\nTrust:\n  %s: %s\n", workdir, tr.Trust.Describe(workdir))
	if len(tr.Settings.Ignored) > 0 {
		fmt.Fprintf(w, "  ignored project grants (run nova trust to apply them):\n")
		for _, ig := range tr.Settings.Ignored {
			fmt.Fprintf(w, "    %s in %s: %s\n", ig.Setting, displayPath(ig.File, workdir, home), ig.Value)
		}
	}
	fmt.Fprintf(w, "\nSettings files loaded (%d):\n", len(tr.Files))
	for _, f := range tr.Files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if len(tr.Files) == 0 {
		fmt.Fprintf(w, "  none (looked for %v)\n", config.SettingsFiles(novaHome, workdir))
	}
	printClaudeSettings(w, tr.Settings.Claude, config.ClaudeSettingsFiles(workdir, config.ClaudeHome(s.Getenv, home)), workdir, home)
	fmt.Fprintf(w, "\nPermissions:\n  mode: %s\n", tr.Config.Mode)
	var allow, ask, deny int
	for _, rs := range tr.Config.RuleSets {
		allow, ask, deny = allow+len(rs.Allow), ask+len(rs.Ask), deny+len(rs.Deny)
	}
	fmt.Fprintf(w, "  rules: %d allow, %d ask, %d deny\n", allow, ask, deny)
	for _, d := range tr.Config.AddDirs {
		fmt.Fprintf(w, "  added directory: %s\n", d)
	}

	printPlugins(w, tr, workdir, home)

	cfg, err := live.SessionHooks(tr)
	if err != nil {
		return exitFor(err)
	}
	fmt.Fprintf(w, "\nHooks (%d):\n", cfg.Len())
	describeHooks(w, cfg, tr.Settings.Ignored, workdir, home)

	fmt.Fprintf(w, "\nSandbox:\n  in force: %s\n", sandboxInForce(tr, workdir, home))
	r := tr.Probe
	if r == nil {
		probed := sandbox.ProbeCached(ctx, live.ProbeCacheFile(novaHome), true)
		r = &probed
	}
	fmt.Fprintf(w, "  %s\n", r.String())
	switch {
	case tr.Sandbox != nil:
		fmt.Fprintf(w, "  Bash commands run inside %s", tr.Sandbox.Backend())
		if tr.Config.SandboxAutoAllow {
			fmt.Fprintf(w, " and are allowed without asking (sandbox.autoAllow)")
		}
		fmt.Fprintln(w)
		printSandboxPolicy(w, tr, workdir, home)
	case tr.Choice.On():
		fmt.Fprintf(w, "  %s\n", tr.Notice)
	default:
		fmt.Fprintf(w, "  Bash commands run unsandboxed, under the permission rules alone.\n")
	}
	var environ []string
	if s.Environ != nil {
		environ = s.Environ()
	}
	printEnvPolicy(w, tr.EnvPolicy, environ)
	printProfiles(w, profileBase{mode: string(tr.Config.Mode), allow: allow, ask: ask, deny: deny, hooks: cfg.Len(),
		sandbox: sandboxInForce(tr, workdir, home), trust: tr.Trust.Describe(workdir)})
	printInstructions(w, novaHome, workdir, home, config.ClaudeHome(s.Getenv, home))
	// The profile is printed whole, but a script that asks whether nova
	// can run here gets its answer from the exit code too.
	if len(provs) == 0 {
		return usageErr("no model provider configured (see Providers above)")
	}
	if selErr != nil {
		return usageErr("the default model: %v", selErr)
	}
	return nil
}

// printEnvPolicy says which variables of environ (nova's own
// environment) the programs a session here starts would not inherit, by
// name only, and what the settings let through.
func printEnvPolicy(w io.Writer, p tools.EnvPolicy, environ []string) {
	fmt.Fprintf(w, "\nEnvironment of Bash, !cmd, skills' ! lines, MCP stdio servers and teammates:\n")
	if dropped := p.Dropped(environ); len(dropped) > 0 {
		fmt.Fprintf(w, "  left out: %s\n", strings.Join(dropped, ", "))
	} else {
		fmt.Fprintf(w, "  left out: none (no credential of nova's or secret-named variable is set)\n")
	}
	if len(p.Passthrough) > 0 {
		fmt.Fprintf(w, "  envPassthrough: %s\n", strings.Join(p.Passthrough, ", "))
	}
	fmt.Fprintf(w, "  hooks get your environment without nova's credentials; teammates also get their provider's variables\n")
}

// printPlugins lists the plugins a session here loads, where each is
// from and what it supplies, and those turned on but not installed.
func printPlugins(w io.Writer, tr *live.Setup, workdir, home string) {
	pl := tr.Plugins
	fmt.Fprintf(w, "\nPlugins (%d):\n", len(pl.Plugins))
	if len(pl.Plugins) == 0 && len(pl.Pending) == 0 {
		fmt.Fprintf(w, "  none (nova plugin list shows what is installed)\n")
	}
	for _, p := range pl.Plugins {
		from := string(p.Origin)
		switch p.Origin {
		case plugins.OriginNova:
			from = "installed by nova, on in " + displayPath(p.EnabledBy, workdir, home)
		case plugins.OriginClaude:
			from = "installed by Claude Code, on in " + displayPath(p.EnabledBy, workdir, home)
		}
		version := ""
		if p.Version != "" {
			version = " " + p.Version
		}
		fmt.Fprintf(w, "  %s%s (%s): %s\n    %s\n", p.ID, version, from, p.Root, live.PluginSupplies(p))
	}
	for _, p := range pl.Pending {
		fmt.Fprintf(w, "  %s\n", p.Notice())
	}
	for _, wmsg := range pl.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", wmsg)
	}
}

// profileBase is what every entry point of a session here starts from.
type profileBase struct {
	mode                    string
	allow, ask, deny, hooks int
	sandbox, trust          string
}

// printProfiles says, for each way nova runs an agent here, what it runs
// with: one permission checker, sandbox, hooks and trust below them all,
// and where each one's asks go. A subagent, a teammate or a forked skill
// never runs with less than the session that started it.
func printProfiles(w io.Writer, b profileBase) {
	fmt.Fprintf(w, "\nEntry points (each runs with mode %s, %d allow / %d ask / %d deny rules, %d hooks, sandbox %s, workspace %s):\n",
		b.mode, b.allow, b.ask, b.deny, b.hooks, b.sandbox, b.trust)
	for _, p := range [][2]string{
		{"terminal UI (nova)", "asks go to you, in the dialog"},
		{"print mode (nova -p)", "asks are denials the model is told of"},
		{"remote (nova serve, /remote)", "asks go to the browser or API client that answers first"},
		{"subagent (Agent tool)", "the parent's checker, sandbox, hooks and trust; its type's mode only if narrower; asks go to the parent's frontend (denials in print mode and in the background)"},
		{"skill fork (context: fork)", "a subagent, with the skill's allowed-tools and hooks for the run"},
		{"teammate (nova --team)", "the lead's mode, rules, project settings, hooks, sandbox choice and trust; asks are denials"},
	} {
		fmt.Fprintf(w, "  %-30s %s\n", p[0], p[1])
	}
}

// printInstructions lists the instruction files a session here starts
// with and the problems of their @imports (a missing file, a cycle, the
// depth limit), which a session only tells when it reads them.
func printInstructions(w io.Writer, novaHome, workdir, home, claudeHome string) {
	files, warns, err := memory.LoadInstructions(novaHome, workdir, home, claudeHome)
	if err != nil {
		warns = append(warns, err.Error())
	}
	fmt.Fprintf(w, "\nInstruction files (%d):\n", len(files))
	for _, f := range files {
		fmt.Fprintf(w, "  %s%s\n", displayPath(f.Path, workdir, home), appliesTo(f))
	}
	if len(files) == 0 {
		fmt.Fprintf(w, "  none\n")
	}
	for _, warn := range warns {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
}

// appliesTo says, for a conditional rule, which files it is given with.
func appliesTo(f memory.File) string {
	if !f.Conditional() {
		return ""
	}
	return " (when a tool touches " + strings.Join(f.Paths, ", ") + ")"
}

// sandboxInForce says which sandbox this run has, and what decided it.
func sandboxInForce(tr *live.Setup, workdir, home string) string {
	from := displayPath(tr.Settings.Sources["sandbox.enabled"], workdir, home)
	var s string
	switch tr.Choice {
	case live.SandboxByDefault:
		s = "on by default"
	case live.SandboxBySetting:
		s = "on by setting (sandbox.enabled in " + from + ")"
	case live.SandboxByFlag:
		s = "on for this run (--sandbox)"
	case live.SandboxOffBySetting:
		return "off by setting (sandbox.enabled in " + from + ")"
	case live.SandboxOffByFlag:
		return "off for this run (--no-sandbox)"
	}
	if tr.Sandbox == nil {
		if tr.Choice.Explicit() {
			return fmt.Sprintf("%s, but unavailable: %v; every Bash command asks (refused in print mode)", s, tr.SandboxErr)
		}
		return fmt.Sprintf("%s, but unavailable: %v; Bash runs under the permission rules alone", s, tr.SandboxErr)
	}
	return s + " (" + tr.Sandbox.Backend() + ")"
}

// printClaudeSettings says which of Claude Code's settings files nova
// read, which keys each supplied (a project's grants only when trusted:
// see Trust above), and what it read but does not apply.
func printClaudeSettings(w io.Writer, reads []config.ClaudeRead, lookedFor []string, workdir, home string) {
	fmt.Fprintf(w, "\nClaude Code settings read (%d):\n", len(reads))
	if len(reads) == 0 {
		fmt.Fprintf(w, "  none (looked for %v)\n", lookedFor)
	}
	for _, r := range reads {
		keys := "no key nova reads"
		if len(r.Keys) > 0 {
			keys = strings.Join(r.Keys, ", ")
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", displayPath(r.File, workdir, home), r.Layer, keys)
		for _, sk := range r.Skipped {
			fmt.Fprintf(w, "    not applied: %s\n", sk)
		}
	}
}
