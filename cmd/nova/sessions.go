package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/session"
)

// Export formats of nova sessions export.
const (
	exportMarkdown = "md"
	exportJSON     = "json"
)

// sessionsListOptions are what nova sessions ls runs with.
type sessionsListOptions struct {
	io *IOStreams

	all  bool // every workspace
	json bool // JSON instead of a table
}

// sessionsShowOptions are what nova sessions show runs with.
type sessionsShowOptions struct {
	io *IOStreams

	id string // id or unique prefix
}

// sessionsRemoveOptions are what nova sessions rm runs with.
type sessionsRemoveOptions struct {
	io *IOStreams

	ids            []string // ids or unique prefixes
	deleteMemories bool     // also the memories tied to the sessions
}

// sessionsExportOptions are what nova sessions export runs with.
type sessionsExportOptions struct {
	io *IOStreams

	id     string // id or unique prefix
	format string // exportMarkdown or exportJSON
	output string // file to write instead of stdout
}

// newSessionsCmd is nova sessions: list, show, delete and export saved
// sessions. Alone it only prints its help.
func newSessionsCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export and delete saved sessions",
		Long: `Every conversation with nova is saved as a session. Wherever an id is
asked for, a unique prefix of it works.

  nova sessions ls                      sessions of this directory, newest first
  nova sessions show 01JF3K8Q           the conversation as Markdown
  nova sessions export 01JF3K8Q --format json -o chat.json
  nova sessions rm 01JF3K8Q             delete it and its saved tool output`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown command %q for \"nova sessions\"; want ls, show, export or rm", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSessionsListCmd(f, nil), newSessionsShowCmd(f, nil), newSessionsRemoveCmd(f, nil), newSessionsExportCmd(f, nil))
	return cmd
}

// newSessionsListCmd is nova sessions ls. runF, when not nil, is called
// with the parsed options instead of running them (tests); so for the
// other subcommands.
func newSessionsListCmd(f *Factory, runF func(*sessionsListOptions) error) *cobra.Command {
	opts := &sessionsListOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List the sessions of this directory (--all: of every directory), newest first",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runSessionsList(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.all, "all", "a", false, "list the sessions of every directory")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the sessions as a JSON array")
	return cmd
}

// newSessionsShowCmd is nova sessions show.
func newSessionsShowCmd(f *Factory, runF func(*sessionsShowOptions) error) *cobra.Command {
	opts := &sessionsShowOptions{io: f.IOStreams}
	return &cobra.Command{
		Use:   "show <id|prefix>",
		Short: "Print a session's conversation as Markdown",
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runSessionsExport(&sessionsExportOptions{io: opts.io, id: opts.id, format: exportMarkdown})
		},
	}
}

// newSessionsRemoveCmd is nova sessions rm.
func newSessionsRemoveCmd(f *Factory, runF func(*sessionsRemoveOptions) error) *cobra.Command {
	opts := &sessionsRemoveOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:     "rm <id|prefix>...",
		Aliases: []string{"delete"},
		Short:   "Delete sessions and their saved tool output",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("nova sessions rm: name at least one session id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ids = args
			if runF != nil {
				return runF(opts)
			}
			return runSessionsRemove(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.deleteMemories, "delete-memories", false, "also delete the memories saved during the session")
	return cmd
}

// newSessionsExportCmd is nova sessions export.
func newSessionsExportCmd(f *Factory, runF func(*sessionsExportOptions) error) *cobra.Command {
	opts := &sessionsExportOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "export <id|prefix>",
		Short: "Write a session as Markdown (for people) or JSON (every record, for programs)",
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			switch opts.format {
			case exportMarkdown, "markdown":
				opts.format = exportMarkdown
			case exportJSON:
			default:
				return usageErr("--format %q: want md or json", opts.format)
			}
			if runF != nil {
				return runF(opts)
			}
			return runSessionsExport(opts)
		},
	}
	cmd.Flags().StringVar(&opts.format, "format", exportMarkdown, "md or json")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

// exactlyOneID checks a subcommand got one session id.
func exactlyOneID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageErr("nova sessions %s: want one session id (or a unique prefix of one), got %d arguments", cmd.Name(), len(args))
	}
	return nil
}

// failure is a command that could not do its work: exit code 1.
func failure(err error) error { return &exitError{code: 1, err: err} }

// sessionStore returns the session store of NOVA_HOME and NOVA_HOME itself.
func sessionStore(s *IOStreams) (*session.Store, string, error) {
	home, err := findNovaHome(s)
	if err != nil {
		return nil, "", err
	}
	return session.NewStore(home), home, nil
}

// resolve turns an id or unique prefix into a full session id. A session
// that does not exist, or a prefix that matches several, is a usage error.
func resolve(st *session.Store, arg string) (string, error) {
	id, err := st.Resolve(arg)
	switch {
	case err == nil:
		return id, nil
	case errors.Is(err, session.ErrNotFound):
		return "", usageErr("no session %q (nova sessions ls --all lists them)", arg)
	case strings.Contains(err.Error(), "ambiguous"):
		return "", usageErr("%v; type more of the id", err)
	}
	return "", failure(err)
}

// runSessionsList prints the sessions of the working directory, or of
// every directory with --all, most recently updated first.
func runSessionsList(o *sessionsListOptions) error {
	st, _, err := sessionStore(o.io)
	if err != nil {
		return err
	}
	filter := session.Filter{}
	if !o.all {
		wd, err := o.io.getwd()
		if err != nil {
			return failure(fmt.Errorf("working directory: %w", err))
		}
		if r, err := filepath.EvalSymlinks(wd); err == nil {
			wd = r
		}
		filter.Workspace = wd
	}
	metas, err := st.List(filter)
	if err != nil {
		return failure(err)
	}
	if o.json {
		if metas == nil {
			metas = []session.Meta{}
		}
		enc := json.NewEncoder(o.io.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(metas); err != nil {
			return failure(fmt.Errorf("write session list: %w", err))
		}
		return nil
	}
	if len(metas) == 0 {
		if o.all {
			fmt.Fprintln(o.io.Out, "No sessions yet.")
		} else {
			fmt.Fprintf(o.io.Out, "No sessions in %s (nova sessions ls --all lists every directory's).\n", filter.Workspace)
		}
		return nil
	}
	tw := tabwriter.NewWriter(o.io.Out, 0, 4, 2, ' ', 0)
	if o.all {
		fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tWORKSPACE\tTITLE")
	} else {
		fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tTITLE")
	}
	for _, m := range metas {
		title := live.ShortTitle(m.Title)
		if title == "" {
			title = "(untitled)"
		}
		updated := m.UpdatedAt.Local().Format("2006-01-02 15:04")
		if o.all {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", m.ID, updated, m.MessageCount, m.WorkspaceDir, title)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", m.ID, updated, m.MessageCount, title)
		}
	}
	if err := tw.Flush(); err != nil {
		return failure(fmt.Errorf("write session list: %w", err))
	}
	return nil
}

// runSessionsExport writes session o.id as Markdown or JSON to stdout or
// to file o.output. It only reads, so it works on a session open in
// another process.
func runSessionsExport(o *sessionsExportOptions) error {
	arg, format, out := o.id, o.format, o.output
	if out != "" && !filepath.IsAbs(out) {
		// Relative to the streams' working directory, not the process's.
		if wd, err := o.io.getwd(); err == nil {
			out = filepath.Join(wd, out)
		}
	}
	st, _, err := sessionStore(o.io)
	if err != nil {
		return err
	}
	id, err := resolve(st, arg)
	if err != nil {
		return err
	}
	t, warns, err := st.Load(id)
	if errors.Is(err, session.ErrNotFound) {
		return usageErr("no session %q (nova sessions ls --all lists them)", arg)
	}
	if err != nil {
		return failure(err)
	}
	for _, w := range warns {
		fmt.Fprintf(o.io.ErrOut, "nova: warning: session %s: %s\n", id, w)
	}
	var buf bytes.Buffer
	var w io.Writer = o.io.Out
	if out != "" {
		w = &buf
	}
	if format == exportJSON {
		err = session.ExportJSON(w, t)
	} else {
		err = session.ExportMarkdown(w, t)
	}
	if err != nil {
		return failure(err)
	}
	if out == "" {
		return nil
	}
	// Sessions are private: the export is readable by the user only.
	if err := atomicfile.Write(out, buf.Bytes(), 0o600); err != nil {
		return failure(fmt.Errorf("export session %s: %w", id, err))
	}
	fmt.Fprintf(o.io.ErrOut, "Exported session %s to %s\n", id, o.output)
	return nil
}

// runSessionsRemove deletes the sessions named by o.ids. Every id is
// resolved first, so a typo deletes nothing; a session open in a nova
// process is refused and the others are still deleted.
func runSessionsRemove(o *sessionsRemoveOptions) error {
	st, home, err := sessionStore(o.io)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(o.ids))
	seen := map[string]bool{}
	for _, a := range o.ids {
		id, err := resolve(st, a)
		if err != nil {
			return err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var failed []error
	for _, id := range ids {
		if err := st.Delete(id); err != nil {
			var le *session.LockedError
			if errors.As(err, &le) {
				err = fmt.Errorf("not deleted: %w; close it there first", le)
			}
			failed = append(failed, err)
			continue
		}
		if !o.deleteMemories {
			fmt.Fprintf(o.io.Out, "Deleted session %s\n", id)
			continue
		}
		n, err := memory.NewStore(home).DeleteBySession(id)
		if err != nil {
			failed = append(failed, fmt.Errorf("session %s deleted, but not its memories: %w", id, err))
			continue
		}
		fmt.Fprintf(o.io.Out, "Deleted session %s and %d %s\n", id, n, plural(n, "memory", "memories"))
	}
	if len(failed) > 0 {
		return failure(errors.Join(failed...))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
