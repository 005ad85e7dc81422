package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tui"
)

// trustOptions are what nova trust runs with.
type trustOptions struct {
	io *IOStreams

	list   bool
	revoke bool
	dir    string // the directory to trust or revoke; "" for the working directory
}

// newTrustCmd is nova trust: the folders whose project settings may grant.
// runF, when not nil, is called with the parsed and checked options
// instead of running them (tests).
func newTrustCmd(f *Factory, runF func(*trustOptions) error) *cobra.Command {
	opts := &trustOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "trust [dir]",
		Short: "Trust a folder, so its project settings (.nova/settings.json) may grant permissions",
		Long: `Files in a repository are its author's words, not yours. What a project's
.nova/settings.json and .nova/settings.local.json grant (allow rules,
acceptEdits and bypassPermissions modes, extra directories, env, turning
the sandbox off or loosening it) applies only in a folder you trust; their
deny and ask rules apply everywhere.

  nova trust                 trust the current directory and everything below it
  nova trust ~/src/app       trust that directory
  nova trust --list          the trusted directories
  nova trust --revoke [dir]  stop trusting it

nova --trust trusts the directory for one run without storing it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.dir = args[0]
			}
			if opts.list && (opts.revoke || opts.dir != "") {
				return usageErr("--list takes no directory and no --revoke")
			}
			if runF != nil {
				return runF(opts)
			}
			return runTrust(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.list, "list", false, "list the trusted directories")
	cmd.Flags().BoolVar(&opts.revoke, "revoke", false, "stop trusting the directory")
	return cmd
}

func runTrust(o *trustOptions) error {
	w := o.io.Out
	novaHome, workdir, err := locate(o.io)
	if err != nil {
		return err
	}
	store := config.NewTrustStore(novaHome)
	if o.list {
		list, err := store.List()
		if err != nil {
			return &exitError{code: headless.ExitFailed, err: err}
		}
		if len(list) == 0 {
			fmt.Fprintln(w, "No trusted folders. nova trust [dir] adds one.")
			return nil
		}
		for _, e := range list {
			fmt.Fprintf(w, "%s\t(since %s)\n", e.Path, e.Added.Local().Format("2006-01-02"))
		}
		return nil
	}
	dir := workdir
	if o.dir != "" {
		dir = o.dir
	}
	if !filepath.IsAbs(dir) {
		// Relative to the streams' working directory, not the process's.
		dir = filepath.Join(workdir, dir)
	}
	dir = config.CanonicalDir(dir)
	if o.revoke {
		if err := store.Revoke(dir); err != nil {
			return &exitError{code: headless.ExitFailed, err: err}
		}
		fmt.Fprintf(w, "No longer trusted: %s\nWhat its project settings grant is ignored from now on.\n", dir)
		return nil
	}
	entry, already, err := store.Trust(dir)
	if err != nil {
		return &exitError{code: headless.ExitFailed, err: err}
	}
	switch {
	case already && entry.Path == dir:
		fmt.Fprintf(w, "Already trusted: %s\n", dir)
		return nil
	case already:
		fmt.Fprintf(w, "Already trusted: %s, through %s\n", dir, entry.Path)
		return nil
	}
	fmt.Fprintf(w, "Trusted: %s and every folder below it.\n", dir)
	home := o.io.Home
	if rel, err := filepath.Rel(dir, home); home != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		// The home directory is at or below dir.
		fmt.Fprintf(w, "Note: this trusts every project in your home directory; nova trust --revoke %s takes it back.\n", dir)
	}
	st, _, err := config.LoadSettingsLayers(novaHome, dir, home, false, config.SettingsLayers{ClaudeHome: config.ClaudeHome(o.io.Getenv, home)})
	switch {
	case err != nil:
		fmt.Fprintf(w, "Its settings do not load: %v\n", err)
	case len(st.Ignored) == 0:
		fmt.Fprintln(w, "Its project settings grant nothing yet; what they grant later applies without asking again.")
	default:
		fmt.Fprintln(w, "Its project settings now grant:")
		for _, ig := range st.Ignored {
			fmt.Fprintf(w, "  %s in %s: %s\n", ig.Setting, displayPath(ig.File, dir, home), ig.Value)
		}
	}
	return nil
}

// locate finds NOVA_HOME and the workspace: the working directory, with
// symlinks resolved so it matches the trust store and the sandbox.
func locate(s *IOStreams) (novaHome, workdir string, err error) {
	if novaHome, err = findNovaHome(s); err != nil {
		return "", "", err
	}
	if workdir, err = s.getwd(); err != nil {
		return "", "", usageErr("working directory: %v", err)
	}
	if resolved, err := filepath.EvalSymlinks(workdir); err == nil {
		workdir = resolved
	}
	return novaHome, workdir, nil
}

// findNovaHome is NOVA_HOME, or ~/.nova; not finding it is a usage error.
func findNovaHome(s *IOStreams) (string, error) {
	h, err := config.Home(s.Getenv, s.Home)
	if err != nil {
		return "", usageErr("%v", err)
	}
	return h, nil
}

// untrustedNotice is what nova says of one ignored project grant.
func untrustedNotice(ig config.IgnoredSetting, workdir, home string) string {
	return fmt.Sprintf("ignoring %s in %s: this folder is not trusted (run `nova trust` or pass --trust)",
		ig.Setting, displayPath(ig.File, workdir, home))
}

// askTrust shows the trust dialog when the workspace is not trusted yet,
// before anything that project settings grant is built; it returns false
// when the person quit, with nothing changed.
func askTrust(ctx context.Context, opts *rootOptions) (bool, error) {
	if opts.session.trust {
		return true, nil
	}
	novaHome, workdir, err := locate(opts.io)
	if err != nil {
		return false, err
	}
	ts, err := live.ResolveTrust(novaHome, workdir, false)
	if err != nil {
		return false, usageErr("%v", err)
	}
	if ts.Trusted {
		return true, nil
	}
	// No provider stops nova after the question too: say so first rather
	// than ask about a folder nova cannot work in (providers come from
	// config.json and the environment, never from project files).
	if file, err := config.LoadFile(novaHome); err == nil && len(config.Providers(file, opts.io.Getenv)) == 0 {
		return false, usageErr("%v", config.ErrNoProvider)
	}
	// Settings that do not parse stop nova before the question, as they
	// would after it.
	home := opts.io.Home
	st, _, err := config.LoadSettingsLayers(novaHome, workdir, home, false, config.SettingsLayers{ClaudeHome: config.ClaudeHome(opts.io.Getenv, home)})
	if err != nil {
		return false, usageErr("%v", err)
	}
	p := tui.TrustPrompt{Dir: displayDir(workdir, home)}
	for _, ig := range st.Ignored {
		p.Grants = append(p.Grants, tui.TrustGrant{File: displayPath(ig.File, workdir, home), Setting: ig.Setting, Value: ig.Value})
	}
	// The project's skills and commands are its words too, and may widen
	// what runs without asking (allowed-tools).
	for _, ig := range skills.Load(skills.Dirs{Workdir: workdir}).Ignored {
		p.Grants = append(p.Grants, tui.TrustGrant{File: displayPath(ig.Dir, workdir, home), Setting: string(ig.Kind) + "s", Value: strings.Join(ig.Names, ", ")})
	}
	choice, err := tui.RunTrust(ctx, p, tui.Options{In: opts.io.In, Out: opts.io.Out})
	if err != nil {
		return false, err
	}
	switch choice {
	case tui.TrustFolder:
		if _, _, err := config.NewTrustStore(novaHome).Trust(workdir); err != nil {
			return false, &exitError{code: headless.ExitFailed, err: err}
		}
		return true, nil
	case tui.TrustContinue:
		return true, nil
	}
	return false, nil
}
