package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/session"
)

// Export formats of nova sessions export.
const (
	exportMarkdown = "md"
	exportJSON     = "json"
)

// titleMax is the length, in characters, of a title made from a prompt.
const titleMax = 60

// sessionsOptions are the flags of nova sessions and its subcommands.
type sessionsOptions struct {
	io *IOStreams

	all            bool   // ls: every workspace
	json           bool   // ls: JSON instead of a table
	deleteMemories bool   // rm: also the memories tied to the session
	format         string // export: md or json
	output         string // export: file to write instead of stdout
}

// newSessionsCmd is nova sessions: list, show, delete and export saved
// sessions.
func newSessionsCmd(s *IOStreams) *cobra.Command {
	o := &sessionsOptions{io: s}
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

	ls := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List the sessions of this directory (--all: of every directory), newest first",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return o.runList() },
	}
	ls.Flags().BoolVarP(&o.all, "all", "a", false, "list the sessions of every directory")
	ls.Flags().BoolVar(&o.json, "json", false, "print the sessions as a JSON array")

	show := &cobra.Command{
		Use:   "show <id|prefix>",
		Short: "Print a session's conversation as Markdown",
		Args:  exactlyOneID,
		RunE:  func(cmd *cobra.Command, args []string) error { return o.runExport(args[0], exportMarkdown, "") },
	}

	rm := &cobra.Command{
		Use:     "rm <id|prefix>...",
		Aliases: []string{"delete"},
		Short:   "Delete sessions and their saved tool output",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("nova sessions rm: name at least one session id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.runRemove(args) },
	}
	rm.Flags().BoolVar(&o.deleteMemories, "delete-memories", false, "also delete the memories saved during the session")

	export := &cobra.Command{
		Use:   "export <id|prefix>",
		Short: "Write a session as Markdown (for people) or JSON (every record, for programs)",
		Args:  exactlyOneID,
		RunE:  func(cmd *cobra.Command, args []string) error { return o.runExport(args[0], o.format, o.output) },
	}
	export.Flags().StringVar(&o.format, "format", exportMarkdown, "md or json")
	export.Flags().StringVarP(&o.output, "output", "o", "", "write to this file instead of stdout")

	cmd.AddCommand(ls, show, rm, export)
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

// store returns the session store of NOVA_HOME and NOVA_HOME itself.
func (o *sessionsOptions) store() (*session.Store, string, error) {
	home, err := config.Home(o.io.Getenv, userHome(o.io))
	if err != nil {
		return nil, "", usageErr("%v", err)
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

// runList prints the sessions of the working directory, or of every
// directory with --all, most recently updated first.
func (o *sessionsOptions) runList() error {
	st, _, err := o.store()
	if err != nil {
		return err
	}
	filter := session.Filter{}
	if !o.all {
		wd, err := os.Getwd()
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
		title := shortTitle(m.Title)
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

// runExport writes session arg as Markdown or JSON to stdout or to file
// out. It only reads, so it works on a session open in another process.
func (o *sessionsOptions) runExport(arg, format, out string) error {
	switch format {
	case exportMarkdown, "markdown":
		format = exportMarkdown
	case exportJSON:
	default:
		return usageErr("--format %q: want md or json", format)
	}
	st, _, err := o.store()
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
	fmt.Fprintf(o.io.ErrOut, "Exported session %s to %s\n", id, out)
	return nil
}

// runRemove deletes the sessions named by args. Every id is resolved
// first, so a typo deletes nothing; a session open in a nova process is
// refused and the others are still deleted.
func (o *sessionsOptions) runRemove(args []string) error {
	st, home, err := o.store()
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(args))
	seen := map[string]bool{}
	for _, a := range args {
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

// shortTitle makes a session title from a prompt: its first non-blank
// line, spaces collapsed, cut at a word boundary to at most titleMax
// characters with "…" when shortened. Print mode titles its sessions this
// way rather than paying for a model call.
func shortTitle(prompt string) string {
	line := ""
	for l := range strings.SplitSeq(prompt, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			line = l
			break
		}
	}
	r := []rune(line)
	if len(r) <= titleMax {
		return line
	}
	cut := titleMax - 1 // room for the ellipsis
	end := cut
	for i := cut; i > cut/2; i-- {
		if r[i] == ' ' {
			end = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:end]), func(c rune) bool {
		return unicode.IsSpace(c) || unicode.IsPunct(c) && c != ')' && c != '"' && c != '\''
	}) + "…"
}
