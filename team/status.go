package team

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteStatus prints team t for a person: its teammates (name, pid,
// whether the process runs, branch, worktree, session) and its board.
func WriteStatus(w io.Writer, t *Team) error {
	ms, err := t.Members()
	if err != nil {
		return err
	}
	tasks, err := t.Board.List()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Team %s (%s)\n\n", t.Name, t.Dir)
	if len(ms) == 0 {
		fmt.Fprintln(w, "No teammates.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPID\tALIVE\tBRANCH\tWORKTREE\tSESSION")
		for _, m := range ms {
			alive := "no"
			if m.Exited.IsZero() && Alive(m.PID) {
				alive = "yes"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", m.Name, m.PID, alive, m.Branch, m.Worktree, or(m.SessionID, "-"))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	if len(tasks) == 0 {
		fmt.Fprintln(w, "The task board is empty.")
		return nil
	}
	fmt.Fprintf(w, "Tasks:\n%s\n", FormatBoard(tasks))
	return nil
}

// WriteList prints the teams under novaHome, one a line with its number
// of teammates and tasks.
func WriteList(w io.Writer, novaHome string) error {
	names, err := List(novaHome)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		fmt.Fprintln(w, "No teams.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEAM\tTEAMMATES\tTASKS")
	for _, n := range names {
		t, err := Open(novaHome, n)
		if err != nil {
			return err
		}
		ms, err := t.Members()
		if err != nil {
			return err
		}
		tasks, err := t.Board.List()
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\n", n, len(ms), len(tasks))
	}
	return tw.Flush()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
