package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
)

func newDoctorCmd(s *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Show the effective trust profile: providers, permission mode, settings, sandbox",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(s, cmd.OutOrStdout())
		},
	}
}

func runDoctor(s *IOStreams, w io.Writer) error {
	novaHome, err := config.Home(s.Getenv)
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(w, "NOVA_HOME: %s\n", novaHome)
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
	if sel, err := config.Select(provs, file, "", s.Getenv); err == nil {
		fmt.Fprintf(w, "Default model: %s\n", sel.ID())
	}
	return nil
}
