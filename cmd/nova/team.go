package main

import (
	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/team"
)

// newTeamCmd is nova team: the teams a lead started, and the hidden
// worker command a teammate's process runs.
func newTeamCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Show agent teams: teammates and their task board",
		Long: `A lead agent starts teammates (the TeamSpawn tool): nova processes in their
own git worktrees, sharing a task board and a mailbox kept under
NOVA_HOME/teams/<team>/. See docs/teams.md.

  nova team list            the teams, with their teammates and tasks
  nova team status [team]   a team's teammates (pid, alive, branch, worktree, session) and board`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the teams",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := findNovaHome(f.IOStreams)
			if err != nil {
				return err
			}
			if err := team.WriteList(f.IOStreams.Out, home); err != nil {
				return failure(err)
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "status [team]",
		Short: "Print a team's teammates and task board (the only team when none is named)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := findNovaHome(f.IOStreams)
			if err != nil {
				return err
			}
			var name string
			if len(args) == 1 {
				name = args[0]
			} else {
				names, err := team.List(home)
				switch {
				case err != nil:
					return failure(err)
				case len(names) == 0:
					return usageErr("there are no teams yet: a lead starts one with the TeamSpawn tool")
				case len(names) > 1:
					return usageErr("there are %d teams; name one: nova team status <team> (nova team list shows them)", len(names))
				}
				name = names[0]
			}
			t, err := team.Existing(home, name)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := team.WriteStatus(f.IOStreams.Out, t); err != nil {
				return failure(err)
			}
			return nil
		},
	})
	worker := &cobra.Command{
		Use:    "worker",
		Short:  "Run a teammate (started by the lead's TeamSpawn)",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	var o team.WorkerOptions
	worker.Flags().StringVar(&o.Team, "team", "", "the team")
	worker.Flags().StringVar(&o.Name, "name", "", "the teammate")
	worker.RunE = func(cmd *cobra.Command, args []string) error {
		home, err := findNovaHome(f.IOStreams)
		if err != nil {
			return err
		}
		o.NovaHome, o.Home, o.Getenv, o.Version = home, f.IOStreams.Home, f.IOStreams.Getenv, version
		if err := team.RunWorker(cmd.Context(), o); err != nil {
			return failure(err)
		}
		return nil
	}
	cmd.AddCommand(worker)
	return cmd
}
