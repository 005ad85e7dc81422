package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
)

// mcpProbe connects to a server that may start and counts its tools, for
// nova mcp list and get.
type mcpProbe func(ctx context.Context, s config.ConfiguredMCP) (tools int, err error)

// mcpProber is the probe of nova mcp list and get: each server that may
// start is connected to as a session would (in the workspace, MCP_TIMEOUT
// bounding it), its tools counted, and disconnected.
func mcpProber(f *Factory) mcpProbe {
	if f.MCPProbe != nil {
		return f.MCPProbe
	}
	return func(ctx context.Context, s config.ConfiguredMCP) (int, error) {
		novaHome, workdir, err := locate(f.IOStreams)
		if err != nil {
			return 0, err
		}
		return live.ProbeMCP(ctx, s, novaHome, workdir, f.IOStreams.Getenv)
	}
}

// mcpAddOptions are what nova mcp add and add-json run with.
type mcpAddOptions struct {
	io *IOStreams

	name   string
	scope  config.MCPScope
	server config.MCPServer // as written: ${VAR} references stay for LoadMCP to expand

	// The raw flags of nova mcp add; complete turns them into server.
	scopeFlag string
	transport string
	env       []string // KEY=value
	headers   []string // "Name: value"
}

// mcpListOptions are what nova mcp list runs with.
type mcpListOptions struct {
	io    *IOStreams
	probe mcpProbe // nil: no status column
}

// mcpGetOptions are what nova mcp get runs with.
type mcpGetOptions struct {
	io    *IOStreams
	name  string
	probe mcpProbe // nil: no status line
}

// mcpRemoveOptions are what nova mcp remove runs with.
type mcpRemoveOptions struct {
	io    *IOStreams
	name  string
	scope config.MCPScope // "": the one scope that has it
}

// newMCPCmd is nova mcp: the MCP servers nova starts. Alone it only
// prints its help.
func newMCPCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Configure MCP servers (Claude Code's .mcp.json format)",
		Long: `MCP servers give the agent more tools. nova reads Claude Code's formats:
the project's .mcp.json, NOVA_HOME/settings.json, ~/.claude.json (read
only) and --mcp-config. See docs/mcp.md.

  nova mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  nova mcp add -t http -H "Authorization: Bearer ${TOKEN}" api https://example.com/mcp
  nova mcp add-json -s user db '{"command": "db-mcp", "env": {"DSN": "${DSN}"}}'
  nova mcp list                    every server here, where it comes from, whether it may start
  nova mcp get fs                  one server in full (secrets masked)
  nova mcp login linear            log in to a server that wants OAuth (logout forgets it)
  nova mcp remove fs
  nova mcp serve                   nova itself as an MCP server (stdio), for other agents`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown command %q for \"nova mcp\"; want add, add-json, list, get, login, logout, remove or serve", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMCPAddCmd(f, nil), newMCPAddJSONCmd(f, nil), newMCPListCmd(f, nil), newMCPGetCmd(f, nil), newMCPLoginCmd(f, nil), newMCPLogoutCmd(f, nil), newMCPRemoveCmd(f, nil), newMCPServeCmd(f))
	return cmd
}

// newMCPAddCmd is nova mcp add. runF, when not nil, is called with the
// parsed and checked options instead of running them (tests); so for the
// other subcommands.
func newMCPAddCmd(f *Factory, runF func(*mcpAddOptions) error) *cobra.Command {
	opts := &mcpAddOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "add [flags] <name> <commandOrUrl> [args...]",
		Short: "Add an MCP server: a command to run (stdio), or the URL of an http or sse server",
		Long: `Add an MCP server to the local (default), project or user config.

  nova mcp add fs -- npx -y @modelcontextprotocol/server-filesystem /tmp
  nova mcp add -e API_KEY=${API_KEY} -s user search -- search-mcp --fast
  nova mcp add -t http notion https://mcp.notion.com/mcp
  nova mcp add -t sse -H "X-Api-Key: ${KEY}" old https://example.com/sse

Everything after -- goes to the command as it is, flags included.
${VAR} and ${VAR:-default} are kept as written and expanded when nova
starts the server.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.complete(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runMCPAdd(opts)
		},
	}
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// nova mcp add fs npx -y pkg: the command's own flags need --.
		return usageErr("%v\nA command's own flags go after --: nova mcp add [flags] <name> -- <command> [args...]", err)
	})
	fl := cmd.Flags()
	fl.StringVarP(&opts.transport, "transport", "t", config.MCPStdio, "stdio, http (Streamable HTTP) or sse")
	fl.StringArrayVarP(&opts.env, "env", "e", nil, "KEY=value set for a stdio server (repeatable)")
	fl.StringArrayVarP(&opts.headers, "header", "H", nil, `"Name: value" sent to an http or sse server (repeatable)`)
	fl.StringVarP(&opts.scopeFlag, "scope", "s", string(config.MCPScopeLocal), "local (you, this project), project (.mcp.json) or user (you, every project)")
	return cmd
}

// complete makes the server of nova mcp add from its arguments and
// flags; its errors are usage errors.
func (o *mcpAddOptions) complete(args []string) error {
	if len(args) < 2 {
		return usageErr("nova mcp add: want a name and a command or URL: nova mcp add <name> -- <command> [args...], or nova mcp add -t http <name> <url>")
	}
	if err := o.completeScope(); err != nil {
		return err
	}
	o.name = args[0]
	rest := args[1:]
	switch o.transport {
	case config.MCPStdio:
		if len(o.headers) > 0 {
			return usageErr("--header is for http and sse servers; a stdio server gets --env")
		}
		if strings.HasPrefix(rest[0], "http://") || strings.HasPrefix(rest[0], "https://") {
			return usageErr("%s is a URL, not a command: an HTTP server needs -t http (or -t sse for the older HTTP+SSE transport)", rest[0])
		}
		o.server = config.MCPServer{Type: config.MCPStdio, Command: rest[0], Args: append([]string(nil), rest[1:]...)}
		for _, kv := range o.env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t") {
				return usageErr("--env %q: want KEY=value", kv)
			}
			if o.server.Env == nil {
				o.server.Env = map[string]string{}
			}
			o.server.Env[k] = v
		}
	case config.MCPHTTP, config.MCPSSE:
		if len(o.env) > 0 {
			return usageErr("--env is for stdio servers; an %s server gets --header", o.transport)
		}
		if len(rest) > 1 {
			return usageErr("an %s server takes one URL, not %d arguments (%s)", o.transport, len(rest), strings.Join(rest, " "))
		}
		o.server = config.MCPServer{Type: o.transport, URL: rest[0]}
		for _, h := range o.headers {
			k, v, ok := strings.Cut(h, ":")
			if k = strings.TrimSpace(k); !ok || k == "" || strings.ContainsAny(k, " \t") {
				return usageErr("--header %q: want \"Name: value\"", h)
			}
			if o.server.Headers == nil {
				o.server.Headers = map[string]string{}
			}
			o.server.Headers[k] = strings.TrimSpace(v)
		}
	default:
		return usageErr("--transport %q: want stdio, http or sse", o.transport)
	}
	if err := config.CheckMCPServer(o.name, o.server); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// completeScope checks --scope of add and add-json.
func (o *mcpAddOptions) completeScope() error {
	sc, ok := config.ParseMCPScope(o.scopeFlag)
	if !ok {
		return usageErr("--scope %q: want local, project or user", o.scopeFlag)
	}
	o.scope = sc
	return nil
}

// newMCPAddJSONCmd is nova mcp add-json.
func newMCPAddJSONCmd(f *Factory, runF func(*mcpAddOptions) error) *cobra.Command {
	opts := &mcpAddOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "add-json [flags] <name> <json>",
		Short: "Add an MCP server from a JSON entry of .mcp.json's format",
		Long: `Add an MCP server from one entry of .mcp.json's format.

  nova mcp add-json weather '{"command": "weather-mcp", "args": ["--units", "metric"]}'
  nova mcp add-json -s project api '{"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErr("nova mcp add-json: want a name and a JSON object, got %d arguments", len(args))
			}
			if err := opts.completeScope(); err != nil {
				return err
			}
			opts.name = args[0]
			s, err := config.ParseMCPServer([]byte(args[1]))
			if err != nil {
				return usageErr("nova mcp add-json %s: %v", opts.name, err)
			}
			if err := config.CheckMCPServer(opts.name, s); err != nil {
				return usageErr("%v", err)
			}
			opts.server = s
			if runF != nil {
				return runF(opts)
			}
			return runMCPAdd(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.scopeFlag, "scope", "s", string(config.MCPScopeLocal), "local, project or user")
	return cmd
}

// newMCPListCmd is nova mcp list.
func newMCPListCmd(f *Factory, runF func(*mcpListOptions) error) *cobra.Command {
	opts := &mcpListOptions{io: f.IOStreams, probe: mcpProber(f)}
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the MCP servers of this folder: scope, command or URL, and whether each may start",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runMCPList(cmd.Context(), opts)
		},
	}
}

// newMCPGetCmd is nova mcp get.
func newMCPGetCmd(f *Factory, runF func(*mcpGetOptions) error) *cobra.Command {
	opts := &mcpGetOptions{io: f.IOStreams, probe: mcpProber(f)}
	return &cobra.Command{
		Use:   "get <name>",
		Short: "Show one MCP server: where it is configured, what it runs, whether it may start",
		Args:  mcpOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runMCPGet(cmd.Context(), opts)
		},
	}
}

// newMCPRemoveCmd is nova mcp remove.
func newMCPRemoveCmd(f *Factory, runF func(*mcpRemoveOptions) error) *cobra.Command {
	opts := &mcpRemoveOptions{io: f.IOStreams}
	var scope string
	cmd := &cobra.Command{
		Use:     "remove [flags] <name>",
		Aliases: []string{"rm"},
		Short:   "Remove an MCP server from the local, project or user config",
		Args:    mcpOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if scope != "" {
				sc, ok := config.ParseMCPScope(scope)
				if !ok {
					return usageErr("--scope %q: want local, project or user", scope)
				}
				opts.scope = sc
			}
			if runF != nil {
				return runF(opts)
			}
			return runMCPRemove(opts)
		},
	}
	cmd.Flags().StringVarP(&scope, "scope", "s", "", "local, project or user (default: the one scope that has it)")
	return cmd
}

// mcpOneName checks a subcommand got one server name.
func mcpOneName(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageErr("nova mcp %s: want one server name, got %d arguments", cmd.Name(), len(args))
	}
	return nil
}

// mcpErr gives an error of the config package its exit code: the
// person's input or a config file they can fix is 2, the machine's (a
// file that would not write) is 1.
func mcpErr(err error) error {
	var ie *config.InputError
	var errno syscall.Errno
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie):
		return usageErr("%v", err)
	case errors.As(err, &errno):
		return failure(err)
	}
	return usageErr("%v", err)
}

// mcpScopeWords names a scope and says whose its servers are and where
// they apply: "local (yours, this project only)".
func mcpScopeWords(sc config.MCPScope) string {
	whose := map[config.MCPScope]string{
		config.MCPScopeLocal:   "yours, this project only",
		config.MCPScopeProject: ".mcp.json, shared through the repository",
		config.MCPScopeUser:    "yours, every project",
		config.MCPScopeClaude:  "Claude Code's ~/.claude.json, read only",
		config.MCPScopeCLI:     "--mcp-config",
		config.MCPScopePlugin:  "a plugin's (nova plugin list)",
	}[sc]
	if whose == "" {
		return string(sc)
	}
	return fmt.Sprintf("%s (%s)", sc, whose)
}

// mcpConfigWords is "the local config (yours, this project only)".
func mcpConfigWords(sc config.MCPScope) string {
	name, whose, _ := strings.Cut(mcpScopeWords(sc), " ")
	return strings.TrimSpace("the " + name + " config " + whose)
}

func runMCPAdd(o *mcpAddOptions) error {
	novaHome, workdir, err := locate(o.io)
	if err != nil {
		return err
	}
	if err := config.AddMCPServer(novaHome, workdir, o.scope, o.name, o.server); err != nil {
		return mcpErr(err)
	}
	w := o.io.Out
	fmt.Fprintf(w, "Added %s MCP server %s to %s: %s\n", o.server.Transport(), o.name, mcpConfigWords(o.scope), mcpTarget(o.server))
	fmt.Fprintf(w, "File modified: %s\n", config.MCPFile(novaHome, workdir, o.scope))
	if o.scope == config.MCPScopeProject {
		fmt.Fprintln(w, "A .mcp.json server starts for each person once they approve it, in a folder they trust (docs/mcp.md).")
	}
	return nil
}

// loadMCPHere loads the servers nova would see in the streams' working
// directory: trust as stored (no --trust), settings merged as it allows.
func loadMCPHere(s *IOStreams) (novaHome, workdir string, list []config.ConfiguredMCP, err error) {
	if novaHome, workdir, err = locate(s); err != nil {
		return "", "", nil, err
	}
	ts, err := live.ResolveTrust(novaHome, workdir, false)
	if err != nil {
		return "", "", nil, mcpErr(err)
	}
	st, _, err := config.LoadSettingsLayers(novaHome, workdir, s.Home, ts.Trusted, config.SettingsLayers{ClaudeHome: config.ClaudeHome(s.Getenv, s.Home)})
	if err != nil {
		return "", "", nil, mcpErr(err)
	}
	list, err = config.LoadMCP(config.MCPLoad{NovaHome: novaHome, Workspace: workdir, Home: s.Home, Getenv: s.Getenv, Trusted: ts.Trusted, Settings: st})
	if err != nil {
		return "", "", nil, mcpErr(err)
	}
	return novaHome, workdir, list, nil
}

// mcpTarget is what a server runs or where it is: the command line, or
// the URL.
func mcpTarget(s config.MCPServer) string {
	if s.Transport() == config.MCPStdio {
		return shellJoin(append([]string{s.Command}, s.Args...))
	}
	return s.URL
}

// shellJoin joins args as a shell would read them back, quoting those
// that need it.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]#~!{}") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// mcpStateWords is a state for a table cell.
func mcpStateWords(c config.ConfiguredMCP) string {
	switch c.State {
	case config.MCPNeedsApproval:
		return "needs approval"
	case config.MCPInvalid:
		return "invalid: " + c.Problem
	}
	return string(c.State)
}

// mcpStatuses probes the servers that may start, all at once; the others
// are "not started".
func mcpStatuses(ctx context.Context, probe mcpProbe, list []config.ConfiguredMCP) []string {
	out := make([]string, len(list))
	var wg sync.WaitGroup
	for i, c := range list {
		if c.State != config.MCPReady {
			out[i] = "not started"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := probe(ctx, c)
			var login *live.MCPNeedsLogin
			switch {
			case errors.As(err, &login):
				out[i] = login.Error()
				return
			case err != nil:
				out[i] = "failed: " + err.Error()
				return
			}
			out[i] = fmt.Sprintf("connected, %d %s", n, plural(n, "tool", "tools"))
		}()
	}
	wg.Wait()
	return out
}

func runMCPList(ctx context.Context, o *mcpListOptions) error {
	_, _, list, err := loadMCPHere(o.io)
	if err != nil {
		return err
	}
	w := o.io.Out
	if len(list) == 0 {
		fmt.Fprintln(w, "No MCP servers configured here. nova mcp add adds one; a project's .mcp.json and ~/.claude.json are read too (docs/mcp.md).")
		return nil
	}
	var statuses []string
	if o.probe != nil {
		statuses = mcpStatuses(ctx, o.probe, list)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "NAME\tSCOPE\tTRANSPORT\tCOMMAND OR URL\tSTATE"
	if statuses != nil {
		head += "\tSTATUS"
	}
	fmt.Fprintln(tw, head)
	seen := map[config.MCPState]bool{}
	for i, c := range list {
		seen[c.State] = true
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", c.Name, c.Scope, c.Server.Transport(), mcpTarget(c.Server), mcpStateWords(c))
		if statuses != nil {
			row += "\t" + statuses[i]
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return failure(fmt.Errorf("write MCP server list: %w", err))
	}
	notes := []struct {
		state config.MCPState
		text  string
	}{
		{config.MCPNeedsApproval, "needs approval: a .mcp.json server starts once you approve it: the terminal UI asks, or list it in enabledMcpjsonServers (docs/mcp.md)."},
		{config.MCPUntrusted, "untrusted: this folder is not trusted, so its .mcp.json servers do not start; nova trust trusts it."},
		{config.MCPRejected, "rejected: you declined it; take it out of disabledMcpjsonServers (.nova/settings.local.json) to be asked again."},
	}
	for _, n := range notes {
		if seen[n.state] {
			fmt.Fprintln(w, n.text)
		}
	}
	return nil
}

func runMCPGet(ctx context.Context, o *mcpGetOptions) error {
	_, _, list, err := loadMCPHere(o.io)
	if err != nil {
		return err
	}
	var c *config.ConfiguredMCP
	for i := range list {
		if list[i].Name == o.name {
			c = &list[i]
		}
	}
	if c == nil {
		return usageErr("no MCP server %q here (nova mcp list lists them)", o.name)
	}
	w := o.io.Out
	s := c.Server
	fmt.Fprintf(w, "%s:\n", c.Name)
	line := func(k, v string) { fmt.Fprintf(w, "  %-9s %s\n", k+":", v) }
	line("Scope", mcpScopeWords(c.Scope))
	line("Source", c.Source)
	line("Type", s.Transport())
	if s.Transport() == config.MCPStdio || s.Command != "" {
		line("Command", s.Command)
		if len(s.Args) > 0 {
			line("Args", shellJoin(s.Args))
		}
	}
	if s.URL != "" {
		line("URL", s.URL)
	}
	if len(s.Env) > 0 {
		line("Env", maskedPairs(s.Env, "="))
	}
	if len(s.Headers) > 0 {
		line("Headers", maskedPairs(s.Headers, ": "))
	}
	if s.Timeout > 0 {
		line("Timeout", fmt.Sprintf("%d ms", s.Timeout))
	}
	state := mcpStateWords(*c)
	if c.State != config.MCPReady && c.State != config.MCPInvalid && c.Problem != "" {
		state += ": " + c.Problem
	}
	line("State", state)
	if o.probe != nil {
		line("Status", mcpStatuses(ctx, o.probe, []config.ConfiguredMCP{*c})[0])
	}
	switch c.Scope {
	case config.MCPScopeClaude:
		fmt.Fprintf(w, "\nnova only reads ~/.claude.json; Claude Code edits it (claude mcp remove %s).\n", c.Name)
	case config.MCPScopeLocal, config.MCPScopeProject, config.MCPScopeUser:
		fmt.Fprintf(w, "\nTo remove it: nova mcp remove -s %s %s\n", c.Scope, c.Name)
	}
	return nil
}

// maskedPairs lists the names of m, sorted, each with its value masked:
// env values and headers hold tokens.
func maskedPairs(m map[string]string, sep string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		v := "****"
		if m[k] == "" {
			v = ""
		}
		keys[i] = k + sep + v
	}
	return strings.Join(keys, ", ")
}

func runMCPRemove(o *mcpRemoveOptions) error {
	novaHome, workdir, err := locate(o.io)
	if err != nil {
		return err
	}
	sc, err := config.RemoveMCPServer(novaHome, workdir, o.scope, o.name)
	if errors.Is(err, config.ErrMCPServerNotFound) && o.scope == "" {
		if _, _, list, lerr := loadMCPHere(o.io); lerr == nil {
			for _, c := range list {
				if c.Name == o.name && c.Scope == config.MCPScopeClaude {
					return usageErr("%v; it is in ~/.claude.json, which nova only reads (claude mcp remove %s removes it)", err, o.name)
				}
			}
		}
	}
	if err != nil {
		return mcpErr(err)
	}
	fmt.Fprintf(o.io.Out, "Removed MCP server %s from %s\nFile modified: %s\n", o.name, mcpConfigWords(sc), config.MCPFile(novaHome, workdir, sc))
	return nil
}
