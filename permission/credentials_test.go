package permission

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestCredentialPaths(t *testing.T) {
	got := CredentialPaths("/h", "/n")
	for _, want := range []string{"/h/.ssh", "/h/.aws", "/h/.config/gh", "/h/.netrc", "/h/.docker/config.json", "/h/.kube",
		"/h/.npmrc", "/h/.pypirc", "/h/.git-credentials", "/h/.claude/.credentials.json", "/h/.claude.json", "/h/.claude/settings.json",
		"/h/.cargo/credentials.toml", "/n/config.json", "/n/settings.json", "/n/mcp-auth"} {
		if !slices.Contains(got, want) {
			t.Errorf("CredentialPaths lacks %s: %q", want, got)
		}
	}
	for _, p := range got {
		if !filepath.IsAbs(p) {
			t.Errorf("%s is not absolute", p)
		}
	}
	if got := CredentialPaths("/h", ""); !slices.Contains(got, "/h/.nova/config.json") || !slices.Contains(got, "/h/.nova/mcp-auth") {
		t.Errorf("empty novaHome: %q lacks /h/.nova's", got)
	}
	if got := CredentialPaths("", ""); len(got) != 0 {
		t.Errorf("no home, no nova home: %q", got)
	}
}
