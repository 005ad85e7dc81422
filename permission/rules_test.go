package permission

import (
	"slices"
	"testing"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in         string
		tool, spec string
		ok         bool
	}{
		{"Bash", "Bash", "", true},
		{"Bash(npm run test:*)", "Bash", "npm run test:*", true},
		{" Bash(git status) ", "Bash", "git status", true},
		{"Bash(*)", "Bash", "", true},
		{"Read(./secrets/**)", "Read", "./secrets/**", true},
		{"Edit(src/**)", "Edit", "src/**", true},
		{"Read(~/x)", "Read", "~/x", true},
		{"Read(//etc/hosts)", "Read", "//etc/hosts", true},
		{"WebFetch(domain:example.com)", "WebFetch", "domain:example.com", true},
		{"mcp__server", "mcp__server", "", true},
		{"mcp__server__tool", "mcp__server__tool", "", true},
		{"mcp__server__*", "mcp__server__*", "", true},
		{"", "", "", false},
		{"(x)", "", "", false},
		{"Bash(", "", "", false},
		{"Bash()", "", "", false},
		{"Bash(npm:*:x)", "", "", false},
		{"Ba sh", "", "", false},
		{"WebFetch(example.com)", "", "", false},
		{"Read([)", "", "", false},
		{"Write(src/**)", "Write", "src/**", true},
		{"Frobnicate([)", "", "", false}, // any tool's specifier but Bash's and WebFetch's is a path pattern
		{"mcp__s(x)", "", "", false},
		{"Skill", "Skill", "", true},
		{"Skill(deploy)", "Skill", "deploy", true},
		{"Skill(/deploy)", "Skill", "deploy", true},
		{"Skill(ops:*)", "Skill", "ops:*", true},
		{"Skill(review-pr *)", "Skill", "review-pr *", true},
		{"Skill(*)", "Skill", "", true},
		{"Skill(de*ploy)", "", "", false},
		{"Skill(a b)", "", "", false},
		{"Skill(:*)", "", "", false},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseRule(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && (r.Tool != tt.tool || r.Spec != tt.spec) {
			t.Errorf("ParseRule(%q) = %q %q, want %q %q", tt.in, r.Tool, r.Spec, tt.tool, tt.spec)
		}
	}
}

func TestMatchBash(t *testing.T) {
	tests := []struct {
		rule, text string
		want       bool
	}{
		{"Bash(npm run test:*)", "npm run test", true},
		{"Bash(npm run test:*)", "npm run test -- -x", true},
		{"Bash(npm run test:*)", "npm run testing", false},
		{"Bash(git status)", "git status", true},
		{"Bash(git status)", "git  status", true},
		{"Bash(git status)", "git status -s", false},
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(git * main)", "git push origin dev", false},
		{"Bash", "anything", true},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.matchBash(tt.text); got != tt.want {
			t.Errorf("%s on %q = %v", tt.rule, tt.text, got)
		}
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		rule, path string
		want       bool
	}{
		{"Read(./secrets/**)", "/p/secrets/a/b", true},
		{"Read(./secrets/**)", "/p/secrets", true},
		{"Read(./secrets/**)", "/p/src/secrets/a", false},
		{"Read(secrets)", "/p/src/secrets/a", true},
		{"Read(*.pem)", "/p/deep/dir/key.pem", true},
		{"Edit(src/**)", "/p/src/a.go", true},
		{"Edit(src/**)", "/q/src/a.go", false},
		{"Edit(/src/**)", "/p/src/a.go", true},
		{"Read(~/notes/**)", "/home/u/notes/x", true},
		{"Read(//etc/hosts)", "/etc/hosts", true},
		{"Read(//etc/hosts)", "/p/etc/hosts", false},
		{"Read(docs/)", "/p/docs/a.md", true},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		r.Base = "/p"
		if got := r.matchPath(tt.path, "/home/u"); got != tt.want {
			t.Errorf("%s (%s) on %s = %v", tt.rule, r.pattern("/home/u"), tt.path, got)
		}
	}
}

func TestSplitToolList(t *testing.T) {
	got := SplitToolList("Bash(git log:*),Edit  Read, Bash(npm run test:*)")
	want := []string{"Bash(git log:*)", "Edit", "Read", "Bash(npm run test:*)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}

func TestSedScriptSafe(t *testing.T) {
	tests := []struct {
		script string
		want   bool
	}{
		{"s/a/b/", true},
		{"s/hello world/bye/g", true},
		{"s|a|b|gI", true},
		{"1,10p", true},
		{"/foo/d", true},
		{"$!N;P;D", true},
		{"y/abc/xyz/", true},
		{"s/a/b/w out", false},
		{"s/a/b/e", false},
		{"w out", false},
		{"1e date", false},
		{"/x/W out", false},
		{"s/a/b", false},
		{"", true},
	}
	for _, tt := range tests {
		sc, ok := parseSedScript(tt.script)
		got := ok && !sc.exec && len(sc.writes) == 0
		if got != tt.want {
			t.Errorf("parseSedScript(%q) = %+v, %v", tt.script, sc, ok)
		}
	}
	// GNU sed takes the rest of the line as the file name, ; included.
	sc, ok := parseSedScript("1r /etc/passwd\nw out;x")
	if !ok || len(sc.reads) != 1 || sc.reads[0] != "/etc/passwd" || len(sc.writes) != 1 || sc.writes[0] != "out;x" {
		t.Errorf("r and w file names: %+v", sc)
	}
}
