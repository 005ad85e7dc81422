package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/headless"
)

// rootOptions are the flags of the root command.
type rootOptions struct {
	io *IOStreams

	print           bool
	outputFormat    string
	model           string
	maxTurns        int
	permissionMode  string
	allowedTools    []string
	disallowedTools []string
	appendSystem    string
	verbose         bool
	cont            bool
	resume          string
	sandbox         bool
	noSandbox       bool
	trust           bool
	addDirs         []string
}

func newRootCmd(s *IOStreams) *cobra.Command {
	opts := &rootOptions{io: s}
	cmd := &cobra.Command{
		Use:   "nova [prompt]",
		Short: "nova — a terminal-first AI coding assistant",
		Long: `nova reads code, edits files and runs commands for you.

  nova -p "fix the failing test"        run one task and print the answer
  git diff | nova -p "review this"      piped input is added to the prompt
  nova -p --output-format json "..."    one JSON result object

Providers come from ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL,
OLLAMA_HOST or NOVA_HOME/config.json. See docs/ for more.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRoot(cmd, opts, args)
		},
	}
	cmd.SetVersionTemplate("nova {{.Version}}\n")
	f := cmd.Flags()
	f.BoolVarP(&opts.print, "print", "p", false, "print mode: run the prompt non-interactively and print the result")
	f.StringVar(&opts.outputFormat, "output-format", headless.FormatText, "print mode output: text, json or stream-json")
	f.StringVar(&opts.model, "model", "", "model as provider:model (or a model name)")
	f.IntVar(&opts.maxTurns, "max-turns", 0, "stop after this many model turns (0: no limit)")
	f.StringVar(&opts.permissionMode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions")
	f.StringArrayVar(&opts.allowedTools, "allowedTools", nil, `rules to allow without asking, e.g. "Read,Bash(git diff:*)"`)
	f.StringArrayVar(&opts.disallowedTools, "disallowedTools", nil, `rules to deny, e.g. "Bash(rm:*),WebFetch"`)
	f.StringVar(&opts.appendSystem, "append-system-prompt", "", "text appended to the system prompt")
	f.BoolVar(&opts.verbose, "verbose", false, "print tool calls and results to stderr in print mode")
	f.BoolVarP(&opts.cont, "continue", "c", false, "continue the newest session of this directory")
	f.StringVarP(&opts.resume, "resume", "r", "", "resume the session with this id (no id: pick one in the UI)")
	f.BoolVar(&opts.sandbox, "sandbox", false, "run Bash commands inside the OS sandbox (bwrap / sandbox-exec), or refuse them where it cannot run")
	f.BoolVar(&opts.noSandbox, "no-sandbox", false, "run Bash commands outside the OS sandbox for this run")
	f.BoolVar(&opts.trust, "trust", false, "trust this folder's project settings for this run (nova trust stores it)")
	f.StringSliceVar(&opts.addDirs, "add-dir", nil, "further directories the agent may use")
	cmd.AddCommand(newDoctorCmd(s))
	cmd.AddCommand(newSessionsCmd(s))
	cmd.AddCommand(newTrustCmd(s))
	return cmd
}

func runRoot(cmd *cobra.Command, opts *rootOptions, args []string) error {
	pick := opts.resume == pickSession
	if pick {
		opts.resume = ""
	}
	if opts.sandbox && opts.noSandbox {
		return usageErr("--sandbox and --no-sandbox contradict each other: give one")
	}
	if !opts.print {
		if opts.io.InIsPipe {
			return usageErr("the interactive terminal UI needs a terminal on stdin; use print mode for pipes: nova -p \"your prompt\"")
		}
		prompt := strings.TrimSpace(strings.Join(args, " "))
		if pick {
			prompt = "/resume" // open the session picker at start
		}
		return runInteractive(cmd.Context(), opts, prompt)
	}
	if pick {
		return usageErr("--resume needs a session id in print mode (nova sessions ls lists them)")
	}
	switch opts.outputFormat {
	case headless.FormatText, headless.FormatJSON, headless.FormatStreamJSON:
	default:
		return usageErr("--output-format %q: want text, json or stream-json", opts.outputFormat)
	}
	prompt, err := readPrompt(opts.io, args)
	if err != nil {
		return err
	}
	return runPrint(cmd.Context(), opts, prompt)
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
	var piped string
	if s.InIsPipe || prompt == "" {
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
