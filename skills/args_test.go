package skills

import (
	"slices"
	"testing"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/deploy staging now", "deploy", "staging now", true},
		{"  /review\n\nplease look", "review", "please look", true},
		{"/frontend:component Button", "frontend:component", "Button", true},
		{"/x", "x", "", true},
		{"/usr/bin/env is missing", "", "", false},
		{"deploy", "", "", false},
		{"/", "", "", false},
	} {
		name, args, ok := ParseCommand(tc.in)
		if name != tc.name || args != tc.args || ok != tc.ok {
			t.Errorf("ParseCommand(%q) = %q, %q, %v; want %q, %q, %v", tc.in, name, args, ok, tc.name, tc.args, tc.ok)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for in, want := range map[string][]string{
		`a b  c`:                  {"a", "b", "c"},
		`"my widget" React 'Vue'`: {"my widget", "React", "Vue"},
		`it\'s "say \"hi\"" ''`:   {"it's", `say "hi"`, ""},
		`$HOME "unclosed quote`:   {"$HOME", "unclosed quote"},
		"":                        nil,
	} {
		if got := SplitArgs(in); !slices.Equal(got, want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

// Claude Code's numbering: $0 is the first argument.
func TestSubstitute(t *testing.T) {
	vars := map[string]string{"CLAUDE_SKILL_DIR": "/s/dir"}
	for _, tc := range []struct {
		body, args string
		names      []string
		want       string
	}{
		{"Fix issue $ARGUMENTS.", "42 high", nil, "Fix issue 42 high."},
		{"Migrate $0 from $1 to $2.", `"search bar" React Vue`, nil, "Migrate search bar from React to Vue."},
		{"First $ARGUMENTS[0], third [$ARGUMENTS[2]], missing [$5].", "a b c", nil, "First a, third [c], missing []."},
		{"Fix $issue on $branch-name; $HOME stays.", "42 hotfix", []string{"issue", "branch"}, "Fix 42 on hotfix-name; $HOME stays."},
		{"No placeholder here.\n", "x y", nil, "No placeholder here.\n\nARGUMENTS: x y"},
		{"Positional only: $0\n", "x y", nil, "Positional only: x\n"},
		{"No placeholder, no args.", "", nil, "No placeholder, no args."},
		{"Run ${CLAUDE_SKILL_DIR}/run.sh $ARGUMENTS", "", nil, "Run /s/dir/run.sh "},
	} {
		if got := Substitute(tc.body, tc.args, tc.names, vars); got != tc.want {
			t.Errorf("Substitute(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}
