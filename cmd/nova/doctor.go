package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/sandbox"
)

func newDoctorCmd(s *IOStreams) *cobra.Command {
	var o buildOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show the effective trust profile: providers, permission mode, settings, rules, sandbox",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd.Context(), s, cmd.OutOrStdout(), o)
		},
	}
	cmd.Flags().StringVar(&o.permissionMode, "permission-mode", "", "show the profile under this mode")
	cmd.Flags().BoolVar(&o.sandbox, "sandbox", false, "show the profile with the sandbox on")
	return cmd
}

// runDoctor prints what nova would run with here: providers, the default
// model, settings files, permission mode and rules, and a real sandbox probe.
func runDoctor(ctx context.Context, s *IOStreams, w io.Writer, o buildOptions) error {
	novaHome, err := config.Home(s.Getenv)
	if err != nil {
		return usageErr("%v", err)
	}
	workdir, err := os.Getwd()
	if err != nil {
		return usageErr("working directory: %v", err)
	}
	if r, err := filepath.EvalSymlinks(workdir); err == nil {
		workdir = r
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
	if sel, err := config.Select(provs, file, "", s.Getenv); err == nil && sel.Model.Model != "" {
		fmt.Fprintf(w, "  default model: %s\n", sel.ID())
	}

	tr, err := loadTrust(ctx, novaHome, workdir, o, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSettings files loaded (%d):\n", len(tr.files))
	for _, f := range tr.files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if len(tr.files) == 0 {
		fmt.Fprintf(w, "  none (looked for %v)\n", config.SettingsFiles(novaHome, workdir))
	}
	fmt.Fprintf(w, "\nPermissions:\n  mode: %s\n", tr.cfg.Mode)
	var allow, ask, deny int
	for _, rs := range tr.cfg.RuleSets {
		allow, ask, deny = allow+len(rs.Allow), ask+len(rs.Ask), deny+len(rs.Deny)
	}
	fmt.Fprintf(w, "  rules: %d allow, %d ask, %d deny\n", allow, ask, deny)
	for _, d := range tr.cfg.AddDirs {
		fmt.Fprintf(w, "  added directory: %s\n", d)
	}

	fmt.Fprintf(w, "\nSandbox:\n")
	enabled := tr.settings.Sandbox.Enabled != nil && *tr.settings.Sandbox.Enabled
	r := tr.probe
	if r == nil {
		probed := sandbox.Probe(ctx)
		r = &probed
	}
	fmt.Fprintf(w, "  enabled: %v\n  %s\n", enabled, r.String())
	switch {
	case enabled && tr.sandbox != nil:
		fmt.Fprintf(w, "  Bash commands run inside %s", tr.sandbox.Backend())
		if tr.cfg.SandboxAutoAllow {
			fmt.Fprintf(w, " and are allowed without asking (sandbox.autoAllow)")
		}
		fmt.Fprintln(w)
	case enabled:
		fmt.Fprintf(w, "  %s\n", tr.notice)
	default:
		fmt.Fprintf(w, "  Bash commands run unsandboxed; turn it on with --sandbox or \"sandbox\": {\"enabled\": true} in settings.\n")
	}
	return nil
}
