package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tui"
)

// rootOptions are what the root command runs with: print mode or the
// terminal UI, on a runtime shaped by session.
type rootOptions struct {
	io *IOStreams

	print        bool
	outputFormat string // print mode only
	verbose      bool   // print mode only
	// claude are Claude Code's own flags (claude.go).
	claude claudeOptions
	// prompt is what to send first: the arguments, with piped stdin in
	// print mode; in the terminal UI "" waits for one, and "/resume" opens
	// the session picker (a --resume with no id).
	prompt string
	// session is every flag that shapes the runtime; print mode and the
	// terminal UI both build from it as it is.
	session buildOptions
	// remote is the terminal UI's sharing with browsers (/remote).
	remote remoteFlags
	// screen is --screen: the terminal UI's screen mode, "" for the
	// "screen" setting's (then tui.DefaultScreen).
	screen string
}

// docsURL is where the documentation is: an installed nova has no docs/
// folder beside it.
const docsURL = "https://github.com/nova-dev/nova/tree/main/docs"

// printOnly is the annotation of the flags that only print mode reads;
// the docs' flag tables are checked against it.
const printOnly = "nova_print_only"

// newRootCmd is nova itself: the terminal UI, or print mode with -p. runF,
// when not nil, is called with the parsed and checked options instead of
// running them (tests).
func newRootCmd(f *Factory, runF func(*rootOptions) error) *cobra.Command {
	opts := &rootOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "nova [prompt]",
		Short: "nova — a terminal-first AI coding assistant",
		Long: `nova reads code, edits files and runs commands for you.

  nova -p "fix the failing test"        run one task and print the answer
  git diff | nova -p "review this"      piped input is added to the prompt
  nova -p --output-format json "..."    one JSON result object

Providers come from ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL),
OPENAI_API_KEY, OPENAI_BASE_URL, OLLAMA_HOST or NOVA_HOME/config.json;
--model takes provider:model, a model's name or an alias (sonnet, opus,
haiku, fable; astra, sol, luna).

Documentation: ` + docsURL,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "nova "+version)
				return err
			}
			opts.remote.portGiven = cmd.Flags().Changed("port")
			if err := opts.complete(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.claude.sdk() {
				return runSDK(cmd.Context(), opts)
			}
			if opts.print {
				return runPrint(cmd.Context(), opts)
			}
			return runInteractive(cmd.Context(), opts)
		},
	}
	o := &opts.session
	fl := cmd.Flags()
	// nova's own --version, not cobra's: cobra prints a custom version line
	// only through text/template, and a reachable Template.Execute makes
	// the linker keep every exported method of every type (it cannot tell
	// which one a template calls by name): 23 MB of the binary, much of it
	// paged in at start-up. main answers a lone --version before this.
	fl.BoolP("version", "v", false, "version for nova")
	fl.BoolVarP(&opts.print, "print", "p", false, "print mode: run the prompt non-interactively and print the result")
	fl.StringVar(&opts.outputFormat, "output-format", headless.FormatText, "print mode output: text, json or stream-json")
	fl.BoolVar(&opts.verbose, "verbose", false, "print tool calls and results to stderr in print mode")
	for _, name := range []string{"print", "output-format", "verbose"} {
		_ = fl.SetAnnotation(name, printOnly, []string{"true"})
	}
	addClaudeFlags(cmd, opts)
	fl.StringVar(&o.model, "model", "", "model as provider:model, a model name or an alias (sonnet, opus, haiku, sol, ...)")
	fl.IntVar(&o.maxTurns, "max-turns", 0, "stop after this many model turns (0: no limit)")
	fl.StringVar(&o.permissionMode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions")
	fl.StringArrayVar(&o.allowedTools, "allowedTools", nil, `rules to allow without asking, e.g. "Read,Bash(git diff:*)"`)
	fl.StringArrayVar(&o.disallowedTools, "disallowedTools", nil, `rules to deny, e.g. "Bash(rm:*),WebFetch"`)
	fl.StringVar(&o.appendSystem, "append-system-prompt", "", "text appended to the system prompt")
	fl.BoolVarP(&o.cont, "continue", "c", false, "continue the newest session of this directory")
	fl.StringVarP(&o.resume, "resume", "r", "", "resume the session with this id (no id: pick one in the UI)")
	fl.BoolVar(&o.sandbox, "sandbox", false, "run Bash commands inside the OS sandbox (bwrap / sandbox-exec), or refuse them where it cannot run")
	fl.BoolVar(&o.noSandbox, "no-sandbox", false, "run Bash commands outside the OS sandbox for this run")
	fl.BoolVar(&o.trust, "trust", false, "trust this folder's project settings for this run (nova trust stores it)")
	fl.StringSliceVar(&o.addDirs, "add-dir", nil, "further directories the agent may use")
	fl.StringVar(&o.team, "team", "", "lead the team with this name: teammates in git worktrees, a shared task board and mailbox (docs/teams.md)")
	fl.StringArrayVar(&o.mcpConfigs, "mcp-config", nil, "MCP servers from this file or inline JSON, in .mcp.json's format (repeatable)")
	fl.StringArrayVar(&o.pluginDirs, "plugin-dir", nil, "load the Claude Code plugin in this directory for this run (repeatable)")
	fl.BoolVar(&o.strictMCPConfig, "strict-mcp-config", false, "use only the --mcp-config servers: none from .mcp.json, settings or ~/.claude.json")
	fl.BoolVar(&opts.remote.on, "remote", false, "share the session with a browser from the start, as /remote does")
	fl.StringVar(&opts.remote.host, "host", remoteHost, "address /remote serves on (a non-loopback one needs --token)")
	fl.IntVar(&opts.remote.port, "port", remotePort, "port /remote serves on (0: any free port)")
	fl.StringVar(&opts.screen, "screen", "", "where the terminal UI draws: alternate (its own screen) or inline (the terminal's scrollback); default: the \"screen\" setting, else "+tui.DefaultScreen)
	opts.remote.token.add(fl, "/remote's browsers")
	cmd.AddCommand(newDoctorCmd(f, nil))
	cmd.AddCommand(newSessionsCmd(f))
	cmd.AddCommand(newTrustCmd(f, nil))
	cmd.AddCommand(newServeCmd(f, nil))
	cmd.AddCommand(newACPCmd(f))
	cmd.AddCommand(newMCPCmd(f))
	cmd.AddCommand(newTeamCmd(f))
	cmd.AddCommand(newPluginCmd(f))
	return cmd
}

// complete checks the flags and makes the prompt from args (and, in
// print mode, stdin). Its errors are usage errors.
func (o *rootOptions) complete(args []string) error {
	pick := o.session.resume == pickSession
	if pick {
		o.session.resume = ""
	}
	if (pick || o.session.resume != "") && o.session.cont {
		return usageErr("--resume and --continue contradict each other: give one (--continue takes the newest session of this directory)")
	}
	if err := o.session.check(); err != nil {
		return err
	}
	if err := o.session.resolvePluginDirs(o.io); err != nil {
		return err
	}
	if err := o.session.resolveMCPConfigs(o.io); err != nil {
		return err
	}
	if o.print && (o.remote.on || o.remote.host != remoteHost || o.remote.port != remotePort || o.remote.token.token != "" || o.remote.token.file != "" || o.remote.token.insecure) {
		return usageErr("--remote, --host, --port, --token, --token-file and --insecure-token share the terminal UI's session; print mode has none to share (nova serve serves sessions over HTTP)")
	}
	if o.print {
		// Read for /remote, which print mode has not: it is still nova's
		// secret, not for the commands print mode runs.
		if err := o.io.unsetenv(serverTokenEnv); err != nil {
			return err
		}
	}
	if o.screen != "" && (o.print || !tui.ValidScreen(o.screen)) {
		return usageErr("--screen %q: want alternate or inline, for the terminal UI (print mode draws no screen)", o.screen)
	}
	if !o.print {
		if err := o.remote.check(o.io); err != nil {
			return err
		}
		if o.io.InIsPipe {
			return usageErr("the interactive terminal UI needs a terminal on stdin; use print mode for pipes: nova -p \"your prompt\"")
		}
		o.prompt = strings.TrimSpace(strings.Join(args, " "))
		if pick {
			o.prompt = "/resume" // open the session picker at start
		}
		return nil
	}
	if pick {
		return usageErr("--resume needs a session id in print mode (nova sessions ls lists them)")
	}
	switch o.outputFormat {
	case headless.FormatText, headless.FormatJSON, headless.FormatStreamJSON:
	default:
		return usageErr("--output-format %q: want text, json or stream-json", o.outputFormat)
	}
	if o.claude.sdk() {
		if len(args) > 0 {
			return usageErr("--input-format stream-json takes the conversation on stdin, not a prompt argument")
		}
		return nil
	}
	prompt, err := readPrompt(o.io, args)
	if err != nil {
		return err
	}
	o.prompt = prompt
	return nil
}

// check is what every command that builds a runtime (or describes one,
// as nova doctor does) checks of its flags before anything is loaded.
func (o *buildOptions) check() error {
	if o.sandbox && o.noSandbox {
		return usageErr("--sandbox and --no-sandbox contradict each other: give one")
	}
	if o.maxTurns < 0 {
		return usageErr("--max-turns %d: want a number of turns, or 0 for no limit", o.maxTurns)
	}
	if o.permissionMode != "" {
		if _, ok := permission.ParseMode(o.permissionMode); !ok {
			return usageErr("--permission-mode %q: want default, acceptEdits, plan or bypassPermissions", o.permissionMode)
		}
	}
	for _, flag := range []struct {
		name string
		vals []string
	}{{"--allowedTools", o.allowedTools}, {"--disallowedTools", o.disallowedTools}} {
		for _, v := range flag.vals {
			for _, r := range permission.SplitToolList(v) {
				if _, err := permission.ParseRule(r); err != nil {
					return usageErr("%s: %v", flag.name, err)
				}
			}
		}
	}
	return nil
}

// resolvePluginDirs makes each --plugin-dir absolute against the
// streams' working directory; whether it holds a plugin is said when the
// session loads it.
func (o *buildOptions) resolvePluginDirs(s *IOStreams) error {
	if len(o.pluginDirs) == 0 {
		return nil
	}
	wd, err := s.getwd()
	if err != nil {
		return usageErr("working directory: %v", err)
	}
	for i, d := range o.pluginDirs {
		if strings.TrimSpace(d) == "" {
			return usageErr("--plugin-dir: want a directory, got nothing")
		}
		if !filepath.IsAbs(d) {
			o.pluginDirs[i] = filepath.Join(wd, d)
		}
	}
	return nil
}

// resolveMCPConfigs checks each --mcp-config is a file that parses or
// inline JSON that does, and makes the files' paths absolute against the
// streams' working directory, so whatever loads them later reads the
// same files.
func (o *buildOptions) resolveMCPConfigs(s *IOStreams) error {
	if len(o.mcpConfigs) == 0 {
		return nil
	}
	wd, err := s.getwd()
	if err != nil {
		return usageErr("working directory: %v", err)
	}
	for i, v := range o.mcpConfigs {
		if o.mcpConfigs[i], err = config.ResolveMCPConfig(v, wd); err != nil {
			return usageErr("%v", err)
		}
	}
	return nil
}

// pickSession is the --resume value given when -r/--resume has no id: the
// TUI then opens its session picker.
const pickSession = "\x00pick"

// resumeWithoutID rewrites a bare -r/--resume (last, or followed by another
// flag) into --resume=<pickSession>, since pflag has no optional values
// that still accept "-r ID".
func resumeWithoutID(args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if (a == "-r" || a == "--resume") && (i == len(out)-1 || strings.HasPrefix(out[i+1], "-")) {
			out[i] = "--resume=" + pickSession
		}
	}
	return out
}

// readPrompt joins the prompt arguments with piped stdin: with no argument
// stdin is the prompt; with both, stdin is added after the prompt.
func readPrompt(s *IOStreams, args []string) (string, error) {
	prompt := strings.TrimSpace(strings.Join(args, " "))
	if prompt == "" && s.InIsTerminal {
		// Reading the terminal would wait, silently, for a prompt and ctrl+d.
		return "", usageErr("no prompt: print mode needs one as an argument (nova -p \"...\") or on piped stdin (git diff | nova -p \"review this\"); stdin is a terminal. For a conversation, run nova without -p")
	}
	var piped string
	if (s.InIsPipe || prompt == "") && s.In != nil {
		data, err := io.ReadAll(io.LimitReader(s.In, 10<<20))
		if err != nil {
			return "", usageErr("read stdin: %v", err)
		}
		piped = strings.TrimSpace(string(data))
	}
	switch {
	case prompt == "" && piped == "":
		return "", usageErr("no prompt: give one as an argument (nova -p \"...\") or on stdin")
	case prompt == "":
		return piped, nil
	case piped != "":
		return fmt.Sprintf("%s\n\n<stdin>\n%s\n</stdin>", prompt, piped), nil
	}
	return prompt, nil
}
