package skills

import (
	"slices"
	"strings"
	"testing"
)

func TestParseFrontmatterForms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		check      func(*Skill) bool
		warn       string
	}{
		{"comma string", "---\nallowed-tools: Bash(git add:*), Bash(git status:*), Read\ndescription: Commit\n---\nbody",
			func(s *Skill) bool {
				return slices.Equal(s.AllowedTools, []string{"Bash(git add:*)", "Bash(git status:*)", "Read"}) && s.Body == "body"
			}, ""},
		{"space string", "---\nallowed-tools: Read Grep Bash(git diff *)\n---\n",
			func(s *Skill) bool { return slices.Equal(s.AllowedTools, []string{"Read", "Grep", "Bash(git diff *)"}) }, ""},
		{"yaml list", "---\nallowed-tools:\n  - \"Bash(git push:*)\"\n  - Edit\n---\n",
			func(s *Skill) bool { return slices.Equal(s.AllowedTools, []string{"Bash(git push:*)", "Edit"}) }, ""},
		{"hint as a flow list", "---\nargument-hint: [file path]\n---\n",
			func(s *Skill) bool { return s.ArgumentHint == "[file path]" }, ""},
		{"hint that is not YAML", "---\ndescription: Ship it\nargument-hint: [pr-number] [priority]\nmodel: haiku\ndisable-model-invocation: true\n---\nGo.",
			func(s *Skill) bool {
				return s.ArgumentHint == "[pr-number] [priority]" && s.Description == "Ship it" && s.Model == "haiku" && s.DisableModelInvocation
			}, "not valid YAML"},
		{"flags and fork", "---\nuser-invocable: false\ncontext: fork\nagent: Explore\narguments: [issue, branch]\n---\n",
			func(s *Skill) bool {
				return !s.UserInvocable && s.Forked() && s.Agent == "Explore" && slices.Equal(s.Arguments, []string{"issue", "branch"})
			}, ""},
		{"bad flag", "---\ndisable-model-invocation: sometimes\n---\n",
			func(s *Skill) bool { return !s.DisableModelInvocation }, "is not true or false"},
		{"crlf and bom", "\ufeff---\r\ndescription: Windows\r\n---\r\nline one\r\n",
			func(s *Skill) bool { return s.Description == "Windows" && s.Body == "line one\n" }, ""},
		{"no frontmatter", "# Review the diff\nCarefully.\n\nThen more.",
			func(s *Skill) bool { return s.Description == "Review the diff Carefully." && s.UserInvocable }, ""},
		{"unclosed header is body", "---\ndescription: never closed\n",
			func(s *Skill) bool { return strings.HasPrefix(s.Body, "---") }, ""},
		{"hooks in Claude Code's shape become JSON", "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n          timeout: 30\n---\n",
			func(s *Skill) bool {
				return string(s.Hooks) == `{"PreToolUse":[{"hooks":[{"command":"./check.sh","timeout":30,"type":"command"}],"matcher":"Bash"}]}` && s.HooksError == ""
			}, ""},
		{"empty hooks are none", "---\nhooks:\n---\n", func(s *Skill) bool { return s.Hooks == nil && s.HooksError == "" }, ""},
		{"hooks that are not a mapping", "---\nhooks: [a, b]\n---\n",
			func(s *Skill) bool { return s.Hooks == nil && strings.Contains(s.HooksError, "must be a mapping") }, "not run until"},
		{"hooks in a header that is not YAML", "---\nargument-hint: [a] [b]\nhooks:\n  PreToolUse: x\n---\n",
			func(s *Skill) bool { return s.Hooks == nil && strings.Contains(s.HooksError, "not valid YAML") }, "not run until"},
	} {
		s, warns, err := parse(tc.text, "/s/x/SKILL.md", "x", KindSkill, ScopeUser)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(s) {
			t.Errorf("%s: parsed %+v", tc.name, s)
		}
		if got := strings.Join(warns, "; "); tc.warn == "" && got != "" || !strings.Contains(got, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, got, tc.warn)
		}
	}
}
