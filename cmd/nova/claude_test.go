package main

import (
	"slices"
	"strings"
	"testing"
)

// TestClaudeFlags: Claude Code's flags, as scripts and the Agent SDK pass
// them (--flag=value), are taken or refused with words that say why.
func TestClaudeFlags(t *testing.T) {
	sdk := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	tests := []struct {
		name   string
		args   []string
		pipe   bool
		code   int
		stderr string
		check  func(t *testing.T, o *rootOptions)
	}{
		{name: "the Agent SDK's launch", pipe: true, args: append(sdk, "--model=anthropic:claude-x", "--resume=01JTEST", "--max-turns=3",
			"--permission-mode=acceptEdits", "--permission-prompt-tool=stdio", "--include-partial-messages", "--allowedTools=Read,Bash(git log:*)",
			"--disallowedTools=WebFetch", "--tools=Read,Bash", "--system-prompt=be a pirate", "--append-system-prompt=briefly", "--await-initialize"),
			check: func(t *testing.T, o *rootOptions) {
				s := o.session
				if !o.print || !o.claude.sdk() || o.prompt != "" || s.model != "anthropic:claude-x" || s.resume != "01JTEST" || s.maxTurns != 3 ||
					s.permissionMode != "acceptEdits" || o.claude.permissionPromptTool != "stdio" || !o.claude.includePartial ||
					s.systemPrompt != "be a pirate" || s.appendSystem != "briefly" {
					t.Errorf("options %+v %+v", o.session, o.claude)
				}
				if !slices.Equal(s.toolList, []string{"Read", "Bash"}) || !slices.Equal(s.allowedTools, []string{"Read,Bash(git log:*)"}) {
					t.Errorf("tools %v allowed %v", s.toolList, s.allowedTools)
				}
			}},
		{name: "stdin is the conversation, not a prompt", pipe: true, args: append(sdk, "hello"), code: 2, stderr: "not a prompt argument"},
		{name: "stream-json input needs stream-json output", pipe: true, args: []string{"--input-format", "stream-json"}, code: 2, stderr: "needs --output-format stream-json"},
		{name: "unknown input format", args: []string{"-p", "--input-format=yaml", "hi"}, code: 2, stderr: `--input-format "yaml": want text or stream-json`},
		{name: "a permission prompt MCP tool", pipe: true, args: append(sdk, "--permission-prompt-tool=mcp__approve__it"), code: 2, stderr: "supports only stdio"},
		{name: "the stdio prompt needs stdin", args: []string{"-p", "--permission-prompt-tool", "stdio", "hi"}, code: 2, stderr: "needs --input-format stream-json"},
		{name: "partial messages need stream-json", args: []string{"-p", "--include-partial-messages", "--output-format", "json", "hi"}, code: 2, stderr: "needs --output-format stream-json"},
		{name: "kebab spellings", args: []string{"-p", "--allowed-tools", "Read Edit", "--disallowed-tools=WebFetch", "hi"},
			check: func(t *testing.T, o *rootOptions) {
				if !slices.Equal(o.session.allowedTools, []string{"Read Edit"}) || !slices.Equal(o.session.disallowedTools, []string{"WebFetch"}) {
					t.Errorf("allowed %v disallowed %v", o.session.allowedTools, o.session.disallowedTools)
				}
			}},
		{name: "skip permissions", args: []string{"-p", "--dangerously-skip-permissions", "hi"},
			check: func(t *testing.T, o *rootOptions) {
				if o.session.permissionMode != "bypassPermissions" {
					t.Errorf("mode %q", o.session.permissionMode)
				}
			}},
		{name: "skip permissions against another mode", args: []string{"-p", "--dangerously-skip-permissions", "--permission-mode", "plan", "hi"}, code: 2, stderr: "contradict"},
		{name: "no tools", args: []string{"-p", "--tools=", "hi"},
			check: func(t *testing.T, o *rootOptions) {
				if !o.session.toolsSet || len(o.session.toolList) != 0 {
					t.Errorf("tools set %v list %v", o.session.toolsSet, o.session.toolList)
				}
			}},
		{name: "default tools", args: []string{"-p", "--tools", "default", "hi"},
			check: func(t *testing.T, o *rootOptions) {
				if o.session.toolList != nil {
					t.Errorf("tools list %v, want none (all kept)", o.session.toolList)
				}
			}},
		{name: "name and debug", args: []string{"-p", "-n", "the fix", "-d", "hi"},
			check: func(t *testing.T, o *rootOptions) {
				if o.session.name != "the fix" || o.claude.debug != "all" || o.prompt != "hi" {
					t.Errorf("name %q debug %q prompt %q", o.session.name, o.claude.debug, o.prompt)
				}
			}},
		{name: "debug is for print mode", args: []string{"--debug"}, code: 2, stderr: "for print mode"},
	}
	for _, r := range refusedClaudeFlags {
		arg := "--" + r.name + "=x"
		if r.value == "bool" {
			arg = "--" + r.name
		}
		tests = append(tests, struct {
			name   string
			args   []string
			pipe   bool
			code   int
			stderr string
			check  func(t *testing.T, o *rootOptions)
		}{name: "refused " + r.name, args: []string{"-p", arg, "hi"}, code: 2, stderr: "--" + r.name + ": " + r.why})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tio := newTestIO(t, "", tt.pipe, nil)
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
			tt.check(t, got)
		})
	}
}
