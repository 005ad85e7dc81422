package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPluginSettings: enabledPlugins and extraKnownMarketplaces are read
// from nova's and Claude Code's files, layer by layer; a project's true
// and its marketplaces are grants (left out, and listed, in an untrusted
// folder), its false always holds.
func TestPluginSettings(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	novaHome := filepath.Join(home, ".nova")
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(novaHome, "settings.json"), `{"enabledPlugins": {"a@m": true}}`)
	write(filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"b@m": true}, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": "o/r"}}}}`)
	write(filepath.Join(ws, ".claude", "settings.json"), `{"enabledPlugins": {"c@p": true, "a@m": false}, "extraKnownMarketplaces": {"p": {"source": {"source": "git", "url": "https://example.com/p.git"}}}}`)

	for _, trusted := range []bool{false, true} {
		st, _, err := LoadSettings(novaHome, ws, home, trusted)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, s := range st.PluginSets {
			var ids []string
			for id, v := range s.Enabled {
				if v {
					ids = append(ids, "+"+id)
				} else {
					ids = append(ids, "-"+id)
				}
			}
			for n := range s.Marketplaces {
				ids = append(ids, "market:"+n)
			}
			got[s.Layer+map[bool]string{true: "/claude", false: "/nova"}[s.Claude]] = strings.Join(slices.Sorted(slices.Values(ids)), " ")
		}
		want := map[string]string{"user/nova": "+a@m", "user/claude": "+b@m market:m", "project/claude": "-a@m"}
		if trusted {
			want["project/claude"] = "+c@p -a@m market:p"
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("trusted=%v %s: %q, want %q", trusted, k, got[k], v)
			}
		}
		ignored := ""
		for _, ig := range st.Ignored {
			ignored += ig.Setting + "=" + ig.Value + ";"
		}
		if wantIg := "enabledPlugins=c@p;extraKnownMarketplaces=p;"; !trusted && ignored != wantIg {
			t.Errorf("ignored %q, want %q", ignored, wantIg)
		}
	}
}

func TestSetEnabledPlugin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(`{"permissions": {"allow": ["Read"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	on, off := true, false
	for _, step := range []struct {
		v    *bool
		want string
	}{{&on, `"x@m": true`}, {&off, `"x@m": false`}, {nil, ""}} {
		if err := SetEnabledPlugin(path, "x@m", step.v); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if !strings.Contains(string(b), `"Read"`) {
			t.Fatalf("other keys lost: %s", b)
		}
		if step.want == "" && strings.Contains(string(b), "enabledPlugins") || step.want != "" && !strings.Contains(string(b), step.want) {
			t.Errorf("after %v: %s", step.v, b)
		}
	}
}
