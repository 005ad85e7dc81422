package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// callFileTool runs tool with input (marshalled to JSON) the way the
// pipeline would after validation, turning a Go error into an error result
// as the pipeline does.
func callFileTool(t *testing.T, tool Tool, env *Env, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), raw, env)
	if err != nil {
		return Result{Output: err.Error(), IsError: true}
	}
	return res
}

// putFile writes a fixture file (creating directories) with mode.
func putFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// fileText returns a file's bytes as a string.
func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileMode returns a file's permission bits.
func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// changeBehindBack rewrites a file as another program would, with a new
// modification time so the change is visible whatever the clock resolution.
func changeBehindBack(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// wantContains fails unless every part is in s.
func wantContains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("output lacks %q:\n%s", p, s)
		}
	}
}

func TestEditLinesHelpers(t *testing.T) {
	t.Parallel()
	t.Run("decode and encode round trip", func(t *testing.T) {
		for _, in := range []string{"a\nb\n", "a\r\nb\r\n", "\ufeffa\r\nb", "mixed\r\nlf\n", "", "\ufeff"} {
			d := decodeText([]byte(in))
			if got := string(d.encode(d.text)); got != in {
				t.Errorf("round trip of %q gave %q", in, got)
			}
		}
		if d := decodeText([]byte("a\r\nb\r\n")); !d.crlf || d.text != "a\nb\n" {
			t.Errorf("CRLF text not normalised: %+v", d)
		}
		if d := decodeText([]byte("mixed\r\nlf\n")); d.crlf {
			t.Errorf("mixed line endings taken for CRLF")
		}
	})
	t.Run("similar names", func(t *testing.T) {
		got := similarNames("mian.go", []string{"main.go", "other.txt", "zzz_test.go"})
		if len(got) != 1 || got[0] != "main.go" {
			t.Errorf("similarNames = %v", got)
		}
		if got := similarNames("README", []string{"readme.md"}); len(got) != 1 {
			t.Errorf("stem match missing: %v", got)
		}
	})
	t.Run("seek modes", func(t *testing.T) {
		lines := []string{"a", "  b  ", "c"}
		tests := []struct {
			pat  []string
			at   int
			mode int
		}{
			{[]string{"a"}, 0, matchExact},
			{[]string{"  b"}, 1, matchTrimRight},
			{[]string{"b", "c"}, 1, matchWhitespace},
			{[]string{"x"}, -1, matchExact},
		}
		for _, tt := range tests {
			at, mode := seekLines(lines, tt.pat, 0, false)
			if at != tt.at || at >= 0 && mode != tt.mode {
				t.Errorf("seek %q = %d,%d, want %d,%d", tt.pat, at, mode, tt.at, tt.mode)
			}
		}
	})
}
