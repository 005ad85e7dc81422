package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// envMap is an environment of fixed values, for IOStreams.LookupEnv.
func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// testIO is a command's streams in a test: nothing of the process's own
// (environment, home, working directory, terminal) gets through.
type testIO struct {
	s           *IOStreams
	out, errOut *bytes.Buffer
}

// newTestIO returns streams with stdin (a pipe when pipe is true), the
// environment env and a temporary home and working directory.
func newTestIO(t *testing.T, stdin string, pipe bool, env map[string]string) *testIO {
	t.Helper()
	tio := &testIO{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	tio.s = &IOStreams{In: strings.NewReader(stdin), Out: tio.out, ErrOut: tio.errOut, InIsPipe: pipe,
		LookupEnv: envMap(env), Home: t.TempDir(), Workdir: t.TempDir()}
	return tio
}

// parse runs cmd, built on tio.s with a runF that captured into *got, on
// args, as nova would: it returns the exit code.
func (tio *testIO) parse(cmd *cobra.Command, args ...string) int {
	return execute(context.Background(), cmd, args, tio.s)
}

func TestRootOptions(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		pipe  bool
		// code and stderr are the exit code and words of a refused command
		// line; runF is then never called.
		code   int
		stderr string
		check  func(t *testing.T, o *rootOptions)
	}{
		{name: "print with a prompt", args: []string{"-p", "fix", "the  test"}, check: func(t *testing.T, o *rootOptions) {
			if !o.print || o.prompt != "fix the  test" || o.outputFormat != "text" || o.verbose {
				t.Errorf("options %+v", o)
			}
		}},
		{name: "print, json", args: []string{"-p", "--output-format", "json", "hi"}, check: wantFormat("json")},
		{name: "print, stream-json", args: []string{"--print", "--output-format=stream-json", "hi"}, check: wantFormat("stream-json")},
		{name: "print, unknown format", args: []string{"-p", "--output-format", "yaml", "hi"}, code: 2, stderr: `--output-format "yaml": want text, json or stream-json`},
		{name: "print, prompt from stdin", args: []string{"-p"}, stdin: "  summarise README.md\n", pipe: true, check: wantPrompt("summarise README.md")},
		{name: "print, prompt and stdin", args: []string{"-p", "review this"}, stdin: "+added\n", pipe: true,
			check: wantPrompt("review this\n\n<stdin>\n+added\n</stdin>")},
		{name: "print, prompt and an empty pipe", args: []string{"-p", "hi"}, stdin: "", pipe: true, check: wantPrompt("hi")},
		{name: "print, stdin not a pipe is not read", args: []string{"-p", "hi"}, stdin: "typed ahead", check: wantPrompt("hi")},
		{name: "print, no prompt", args: []string{"-p"}, code: 2, stderr: "no prompt: give one as an argument"},
		{name: "print, blank prompt", args: []string{"-p", "  "}, stdin: "\n", pipe: true, code: 2, stderr: "no prompt"},
		{name: "print, verbose", args: []string{"-p", "--verbose", "hi"}, check: func(t *testing.T, o *rootOptions) {
			if !o.verbose {
				t.Error("verbose not set")
			}
		}},
		{name: "terminal UI", args: []string{"fix", "it"}, check: func(t *testing.T, o *rootOptions) {
			if o.print || o.prompt != "fix it" || o.session.interactive {
				t.Errorf("options %+v", o)
			}
		}},
		{name: "terminal UI, no prompt", args: nil, check: wantPrompt("")},
		{name: "terminal UI on a pipe", args: []string{"hi"}, pipe: true, code: 2, stderr: "needs a terminal on stdin; use print mode for pipes"},
		{name: "terminal UI, bare --resume opens the picker", args: []string{"--resume"}, check: func(t *testing.T, o *rootOptions) {
			if o.prompt != "/resume" || o.session.resume != "" {
				t.Errorf("prompt %q resume %q", o.prompt, o.session.resume)
			}
		}},
		{name: "terminal UI, bare -r before a flag", args: []string{"-r", "--model", "m"}, check: func(t *testing.T, o *rootOptions) {
			if o.prompt != "/resume" || o.session.model != "m" {
				t.Errorf("prompt %q model %q", o.prompt, o.session.model)
			}
		}},
		{name: "print, bare -r", args: []string{"-p", "hi", "-r"}, code: 2, stderr: "--resume needs a session id in print mode"},
		{name: "print, --resume id", args: []string{"-p", "-r", "01ABC", "hi"}, check: func(t *testing.T, o *rootOptions) {
			if o.session.resume != "01ABC" || o.session.cont || o.prompt != "hi" {
				t.Errorf("options %+v", o.session)
			}
		}},
		{name: "print, --continue", args: []string{"-p", "-c", "go on"}, check: func(t *testing.T, o *rootOptions) {
			if !o.session.cont || o.session.resume != "" {
				t.Errorf("options %+v", o.session)
			}
		}},
		{name: "--resume with --continue", args: []string{"-p", "-c", "--resume", "01ABC", "hi"}, code: 2, stderr: "--resume and --continue contradict each other"},
		{name: "picker with --continue", args: []string{"-c", "-r"}, code: 2, stderr: "--resume and --continue contradict each other"},
		{name: "--sandbox with --no-sandbox", args: []string{"-p", "--sandbox", "--no-sandbox", "hi"}, code: 2, stderr: "--sandbox and --no-sandbox contradict each other"},
		{name: "--sandbox with --no-sandbox, terminal UI", args: []string{"--sandbox", "--no-sandbox"}, code: 2, stderr: "contradict"},
		{name: "sandbox flags", args: []string{"-p", "--no-sandbox", "--trust", "hi"}, check: func(t *testing.T, o *rootOptions) {
			if !o.session.noSandbox || o.session.sandbox || !o.session.trust {
				t.Errorf("options %+v", o.session)
			}
		}},
		{name: "permission mode", args: []string{"-p", "--permission-mode", "acceptEdits", "hi"}, check: func(t *testing.T, o *rootOptions) {
			if o.session.permissionMode != "acceptEdits" {
				t.Errorf("mode %q", o.session.permissionMode)
			}
		}},
		{name: "unknown permission mode", args: []string{"-p", "--permission-mode", "yolo", "hi"}, code: 2,
			stderr: `--permission-mode "yolo": want default, acceptEdits, plan or bypassPermissions`},
		{name: "unknown permission mode, terminal UI", args: []string{"--permission-mode", "yolo"}, code: 2, stderr: "--permission-mode"},
		{name: "allowed and disallowed tools", args: []string{"-p", "--allowedTools", "Read Bash(echo a,b)", "--allowedTools", "Glob,Edit(src/**)",
			"--disallowedTools", "WebFetch", "hi"}, check: func(t *testing.T, o *rootOptions) {
			// The raw values are kept, a comma inside parentheses
			// included; the checker splits them into rules.
			if want := []string{"Read Bash(echo a,b)", "Glob,Edit(src/**)"}; !slices.Equal(o.session.allowedTools, want) {
				t.Errorf("allowedTools %q, want %q", o.session.allowedTools, want)
			}
			if want := []string{"WebFetch"}; !slices.Equal(o.session.disallowedTools, want) {
				t.Errorf("disallowedTools %q", o.session.disallowedTools)
			}
		}},
		{name: "bad allowed rule", args: []string{"-p", "--allowedTools", "Read,Bash(x:*:y)", "hi"}, code: 2, stderr: "--allowedTools: "},
		{name: "bad disallowed rule", args: []string{"-p", "--disallowedTools", "Bash(x:*:y)", "hi"}, code: 2, stderr: "--disallowedTools: "},
		{name: "added directories", args: []string{"-p", "--add-dir", "../a,../b", "--add-dir", "/c", "hi"}, check: func(t *testing.T, o *rootOptions) {
			if want := []string{"../a", "../b", "/c"}; !slices.Equal(o.session.addDirs, want) {
				t.Errorf("addDirs %q, want %q", o.session.addDirs, want)
			}
		}},
		{name: "model, turns, system prompt", args: []string{"-p", "--model", "openai:gpt-x", "--max-turns", "3", "--append-system-prompt", "be brief", "hi"},
			check: func(t *testing.T, o *rootOptions) {
				if o.session.model != "openai:gpt-x" || o.session.maxTurns != 3 || o.session.appendSystem != "be brief" {
					t.Errorf("options %+v", o.session)
				}
			}},
		{name: "negative max turns", args: []string{"-p", "--max-turns", "-1", "hi"}, code: 2, stderr: "--max-turns -1: want a number of turns, or 0 for no limit"},
		{name: "max turns not a number", args: []string{"-p", "--max-turns", "many", "hi"}, code: 2, stderr: "Run 'nova --help' for usage."},
		{name: "unknown flag", args: []string{"--no-such-flag"}, code: 2, stderr: "unknown flag: --no-such-flag"},
		{name: "unknown screen", args: []string{"--screen", "tabs"}, code: 2, stderr: `--screen "tabs": want alternate or inline`},
		{name: "screen in print mode", args: []string{"-p", "--screen", "inline", "hi"}, code: 2, stderr: "print mode draws no screen"},
		{name: "inline screen", args: []string{"--screen", "inline"}, check: func(t *testing.T, o *rootOptions) {
			if o.screen != "inline" {
				t.Errorf("screen %q", o.screen)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tio := newTestIO(t, tt.stdin, tt.pipe, nil)
			var got *rootOptions
			code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, func(o *rootOptions) error { got = o; return nil }), tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, tio.errOut)
			}
			if tt.code != 0 {
				if got != nil {
					t.Error("runF was called on a refused command line")
				}
				if !strings.Contains(tio.errOut.String(), tt.stderr) {
					t.Errorf("stderr %q, want %q", tio.errOut, tt.stderr)
				}
				return
			}
			if got == nil {
				t.Fatal("runF was not called")
			}
			if got.io != tio.s {
				t.Error("the options do not carry the command's streams")
			}
			tt.check(t, got)
		})
	}
}

func wantFormat(f string) func(*testing.T, *rootOptions) {
	return func(t *testing.T, o *rootOptions) {
		t.Helper()
		if o.outputFormat != f {
			t.Errorf("output format %q, want %q", o.outputFormat, f)
		}
	}
}

func wantPrompt(p string) func(*testing.T, *rootOptions) {
	return func(t *testing.T, o *rootOptions) {
		t.Helper()
		if o.prompt != p {
			t.Errorf("prompt %q, want %q", o.prompt, p)
		}
	}
}

// TestRootSubcommands checks the root command reaches its subcommands
// (built with a nil runF there, so only their refusals are seen).
// failReader fails the test that reads it.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("stdin was read")
	return 0, errors.New("not to be read")
}

// TestPrintNoPromptOnTerminalOptions is the rule at the options: print mode with
// no prompt on a terminal refuses without reading it; a prompt argument,
// or a pipe, still work.
func TestPrintNoPromptOnTerminalOptions(t *testing.T) {
	tio := newTestIO(t, "", false, nil)
	tio.s.In, tio.s.InIsTerminal = failReader{t}, true
	code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, func(*rootOptions) error { t.Error("runF called"); return nil }), "-p")
	if code != 2 || !strings.Contains(tio.errOut.String(), "no prompt: print mode needs one as an argument") || !strings.Contains(tio.errOut.String(), "stdin is a terminal") {
		t.Errorf("exit %d, stderr %q", code, tio.errOut)
	}
	tio = newTestIO(t, "", false, nil)
	tio.s.In, tio.s.InIsTerminal = failReader{t}, true
	var got *rootOptions
	if code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, func(o *rootOptions) error { got = o; return nil }), "-p", "hi"); code != 0 || got == nil || got.prompt != "hi" {
		t.Errorf("-p hi on a terminal: exit %d, %q", code, tio.errOut)
	}
}

// TestHelpPointsToTheDocsURL: an installed nova has no docs/ folder beside
// it, so --help names the repository's.
func TestHelpPointsToTheDocsURL(t *testing.T) {
	tio := newTestIO(t, "", false, nil)
	if code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, nil), "--help"); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	out := tio.out.String()
	if !strings.Contains(out, "Documentation: https://github.com/nova-dev/nova/tree/main/docs") || strings.Contains(out, "See docs/") ||
		!strings.Contains(out, "ANTHROPIC_BASE_URL") {
		t.Errorf("--help:\n%s", out)
	}
}

func TestRootSubcommands(t *testing.T) {
	tio := newTestIO(t, "", false, nil)
	root := newRootCmd(&Factory{IOStreams: tio.s}, nil)
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	for _, want := range []string{"doctor", "sessions", "trust", "mcp"} {
		if !slices.Contains(names, want) {
			t.Errorf("subcommands %v lack %s", names, want)
		}
	}
	if code := tio.parse(root, "trust", "--list", "--revoke"); code != 2 || !strings.Contains(tio.errOut.String(), "--list takes no directory") {
		t.Errorf("trust --list --revoke: exit %d, %q", code, tio.errOut)
	}
}

func TestDoctorOptions(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
		want   buildOptions
	}{
		{args: nil},
		{args: []string{"--permission-mode", "plan", "--trust", "--no-sandbox"}, want: buildOptions{permissionMode: "plan", trust: true, noSandbox: true}},
		{args: []string{"--sandbox"}, want: buildOptions{sandbox: true}},
		{args: []string{"--sandbox", "--no-sandbox"}, code: 2, stderr: "--sandbox and --no-sandbox contradict each other"},
		{args: []string{"--permission-mode", "yolo"}, code: 2, stderr: `--permission-mode "yolo"`},
		{args: []string{"extra"}, code: 2, stderr: `unknown command "extra"`},
		{args: []string{"--model", "x"}, code: 2, stderr: "unknown flag: --model"},
	}
	for _, tt := range tests {
		tio := newTestIO(t, "", false, nil)
		var got *doctorOptions
		code := tio.parse(newDoctorCmd(&Factory{IOStreams: tio.s}, func(o *doctorOptions) error { got = o; return nil }), tt.args...)
		if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) {
			t.Errorf("doctor %q: exit %d stderr %q, want %d and %q", tt.args, code, tio.errOut, tt.code, tt.stderr)
			continue
		}
		if tt.code != 0 {
			if got != nil {
				t.Errorf("doctor %q: runF was called on a refused command line", tt.args)
			}
			continue
		}
		if got == nil || got.io != tio.s || got.session.permissionMode != tt.want.permissionMode || got.session.trust != tt.want.trust ||
			got.session.sandbox != tt.want.sandbox || got.session.noSandbox != tt.want.noSandbox {
			t.Errorf("doctor %q: options %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestTrustOptions(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
		want   trustOptions
	}{
		{args: nil},
		{args: []string{"../app"}, want: trustOptions{dir: "../app"}},
		{args: []string{"--list"}, want: trustOptions{list: true}},
		{args: []string{"--revoke"}, want: trustOptions{revoke: true}},
		{args: []string{"--revoke", "/src/app"}, want: trustOptions{revoke: true, dir: "/src/app"}},
		{args: []string{"--list", "--revoke"}, code: 2, stderr: "--list takes no directory and no --revoke"},
		{args: []string{"--list", "/src/app"}, code: 2, stderr: "--list takes no directory"},
		{args: []string{"a", "b"}, code: 2, stderr: "accepts at most 1 arg"},
	}
	for _, tt := range tests {
		tio := newTestIO(t, "", false, nil)
		var got *trustOptions
		code := tio.parse(newTrustCmd(&Factory{IOStreams: tio.s}, func(o *trustOptions) error { got = o; return nil }), tt.args...)
		if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) {
			t.Errorf("trust %q: exit %d stderr %q, want %d and %q", tt.args, code, tio.errOut, tt.code, tt.stderr)
			continue
		}
		if tt.code != 0 {
			if got != nil {
				t.Errorf("trust %q: runF was called on a refused command line", tt.args)
			}
			continue
		}
		if got == nil || got.io != tio.s || got.list != tt.want.list || got.revoke != tt.want.revoke || got.dir != tt.want.dir {
			t.Errorf("trust %q: options %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestSessionsOptions(t *testing.T) {
	f := func(tio *testIO) *Factory { return &Factory{IOStreams: tio.s} }
	t.Run("ls", func(t *testing.T) {
		for _, tt := range []struct {
			args      []string
			code      int
			all, json bool
		}{
			{args: nil},
			{args: []string{"-a", "--json"}, all: true, json: true},
			{args: []string{"--all"}, all: true},
			{args: []string{"x"}, code: 2},
		} {
			tio := newTestIO(t, "", false, nil)
			var got *sessionsListOptions
			code := tio.parse(newSessionsListCmd(f(tio), func(o *sessionsListOptions) error { got = o; return nil }), tt.args...)
			if code != tt.code || (code == 0 && (got.all != tt.all || got.json != tt.json || got.io != tio.s)) {
				t.Errorf("ls %q: exit %d options %+v", tt.args, code, got)
			}
		}
	})
	t.Run("show", func(t *testing.T) {
		tio := newTestIO(t, "", false, nil)
		var got *sessionsShowOptions
		cmd := func() *cobra.Command {
			return newSessionsShowCmd(f(tio), func(o *sessionsShowOptions) error { got = o; return nil })
		}
		if code := tio.parse(cmd(), "01JF3K"); code != 0 || got.id != "01JF3K" {
			t.Errorf("show: exit %d options %+v", code, got)
		}
		got = nil
		if code := tio.parse(cmd()); code != 2 || got != nil || !strings.Contains(tio.errOut.String(), "want one session id") {
			t.Errorf("show with no id: exit %d, %q", code, tio.errOut)
		}
	})
	t.Run("rm", func(t *testing.T) {
		tio := newTestIO(t, "", false, nil)
		var got *sessionsRemoveOptions
		cmd := func() *cobra.Command {
			return newSessionsRemoveCmd(f(tio), func(o *sessionsRemoveOptions) error { got = o; return nil })
		}
		if code := tio.parse(cmd(), "a", "--delete-memories", "b"); code != 0 || !slices.Equal(got.ids, []string{"a", "b"}) || !got.deleteMemories {
			t.Errorf("rm: exit %d options %+v", code, got)
		}
		got = nil
		if code := tio.parse(cmd()); code != 2 || got != nil || !strings.Contains(tio.errOut.String(), "at least one session id") {
			t.Errorf("rm with no id: exit %d, %q", code, tio.errOut)
		}
	})
	t.Run("export", func(t *testing.T) {
		for _, tt := range []struct {
			args   []string
			code   int
			stderr string
			want   sessionsExportOptions
		}{
			{args: []string{"01A"}, want: sessionsExportOptions{id: "01A", format: exportMarkdown}},
			{args: []string{"01A", "--format", "markdown"}, want: sessionsExportOptions{id: "01A", format: exportMarkdown}},
			{args: []string{"01A", "--format", "json", "-o", "chat.json"}, want: sessionsExportOptions{id: "01A", format: exportJSON, output: "chat.json"}},
			{args: []string{"01A", "--format", "yaml"}, code: 2, stderr: `--format "yaml": want md or json`},
			{args: []string{"01A", "01B"}, code: 2, stderr: "want one session id"},
		} {
			tio := newTestIO(t, "", false, nil)
			var got *sessionsExportOptions
			code := tio.parse(newSessionsExportCmd(f(tio), func(o *sessionsExportOptions) error { got = o; return nil }), tt.args...)
			if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) {
				t.Errorf("export %q: exit %d stderr %q, want %d and %q", tt.args, code, tio.errOut, tt.code, tt.stderr)
				continue
			}
			if tt.code == 0 && (got.id != tt.want.id || got.format != tt.want.format || got.output != tt.want.output) {
				t.Errorf("export %q: options %+v, want %+v", tt.args, got, tt.want)
			}
		}
	})
}

// TestStreamsAreTheDoor checks commands take NOVA_HOME's default, the home
// directory and the working directory from the streams, not from the
// process: HOME and the working directory of the test process are decoys.
func TestStreamsAreTheDoor(t *testing.T) {
	decoy := t.TempDir()
	t.Setenv("HOME", decoy)
	t.Setenv("NOVA_HOME", filepath.Join(decoy, ".nova"))
	t.Chdir(decoy)

	tio := newTestIO(t, "", false, nil)
	w := &sessWorld{t: t, home: filepath.Join(tio.s.Home, ".nova"), ws: tio.s.Workdir}
	if r, err := filepath.EvalSymlinks(w.ws); err == nil {
		w.ws = r
	}
	id := w.add(w.ws, "found through the streams", "hi")
	w.add(decoy, "the process's directory", "x")
	if code := run(context.Background(), []string{"sessions", "ls"}, tio.s); code != 0 {
		t.Fatalf("ls: exit %d %s", code, tio.errOut)
	}
	if out := tio.out.String(); !strings.Contains(out, id) || strings.Contains(out, "the process's directory") {
		t.Errorf("ls = %q, want only the session of the streams' home and working directory", out)
	}

	// Trusting a directory names it relative to the streams' working
	// directory and warns about the streams' home.
	tio.out.Reset()
	tio.s.Workdir = filepath.Join(tio.s.Home, "src")
	if code := run(context.Background(), []string{"trust", ".."}, tio.s); code != 0 {
		t.Fatalf("trust: exit %d %s", code, tio.errOut)
	}
	if out := tio.out.String(); !strings.Contains(out, "Trusted: "+realPath(t, tio.s.Home)) || !strings.Contains(out, "every project in your home directory") {
		t.Errorf("trust .. = %q", out)
	}

	// No NOVA_HOME and no home: nova says what to set.
	none := newTestIO(t, "", false, nil)
	none.s.Home = ""
	if code := run(context.Background(), []string{"sessions", "ls"}, none.s); code != 2 || !strings.Contains(none.errOut.String(), "NOVA_HOME") {
		t.Errorf("no home: exit %d stderr %q", code, none.errOut)
	}
	// No working directory (it was deleted): a clear error, not the process's.
	gone := newTestIO(t, "", false, map[string]string{"NOVA_HOME": t.TempDir()})
	gone.s.Workdir, gone.s.WorkdirErr = "", errors.New("getwd: no such file or directory")
	if code := run(context.Background(), []string{"trust"}, gone.s); code != 2 || !strings.Contains(gone.errOut.String(), "working directory: getwd: no such file") {
		t.Errorf("no working directory: exit %d stderr %q", code, gone.errOut)
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRootMCPConfigFlags: --mcp-config is checked as it is parsed, files
// made absolute against the streams' working directory, and both flags
// reach live.Options.
func TestRootMCPConfigFlags(t *testing.T) {
	tio := newTestIO(t, "", false, nil)
	wd := tio.s.Workdir
	writeTestFile(t, filepath.Join(wd, "servers.json"), `{"mcpServers": {"a": {"command": "a"}}}`)
	writeTestFile(t, filepath.Join(wd, "broken.json"), "{\"mcpServers\": {\n  \"a\": {\"command\": }\n}}")
	writeTestFile(t, filepath.Join(wd, "bare.json"), `{"a": {"command": "a"}}`)
	inline := `{"mcpServers": {"b": {"type": "http", "url": "https://x/mcp"}}}`
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		want   []string
		strict bool
	}{
		{name: "file and inline", args: []string{"-p", "--mcp-config", "servers.json", "--mcp-config", inline, "hi"}, want: []string{filepath.Join(wd, "servers.json"), inline}},
		{name: "absolute file, strict", args: []string{"-p", "--mcp-config=" + filepath.Join(wd, "servers.json"), "--strict-mcp-config", "hi"},
			want: []string{filepath.Join(wd, "servers.json")}, strict: true},
		{name: "strict alone", args: []string{"-p", "--strict-mcp-config", "hi"}, strict: true},
		{name: "terminal UI", args: []string{"--mcp-config", "servers.json"}, want: []string{filepath.Join(wd, "servers.json")}},
		{name: "missing file", args: []string{"-p", "--mcp-config", "nope.json", "hi"}, code: 2, stderr: "--mcp-config nope.json: no such file"},
		{name: "missing file, terminal UI", args: []string{"--mcp-config", "nope.json"}, code: 2, stderr: "no such file"},
		{name: "file that does not parse", args: []string{"-p", "--mcp-config", "broken.json", "hi"}, code: 2, stderr: "broken.json: line 2, column 21"},
		{name: "file without mcpServers", args: []string{"-p", "--mcp-config", "bare.json", "hi"}, code: 2, stderr: `no "mcpServers" object`},
		{name: "inline that does not parse", args: []string{"-p", "--mcp-config", `{"mcpServers": {`, "hi"}, code: 2, stderr: "--mcp-config {\"mcpServers\": {: line 1, column 17"},
		{name: "empty", args: []string{"-p", "--mcp-config", "", "hi"}, code: 2, stderr: "want a file or inline JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tio.out.Reset()
			tio.errOut.Reset()
			var got *rootOptions
			code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, func(o *rootOptions) error { got = o; return nil }), tt.args...)
			if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) {
				t.Fatalf("exit %d stderr %q, want %d and %q", code, tio.errOut, tt.code, tt.stderr)
			}
			if tt.code != 0 {
				if got != nil {
					t.Error("runF was called on a refused command line")
				}
				return
			}
			lo := got.session.live(tio.s, "/nova", wd)
			if !slices.Equal(lo.MCPConfigs, tt.want) || lo.StrictMCPConfig != tt.strict {
				t.Errorf("live.Options MCPConfigs %q strict %v, want %q %v", lo.MCPConfigs, lo.StrictMCPConfig, tt.want, tt.strict)
			}
		})
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
