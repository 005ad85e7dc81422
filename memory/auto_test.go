package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestProjectDir(t *testing.T) {
	got := ProjectDir("/nh", "/home/u/my proj")
	want := filepath.Join("/nh", "projects", "-home-u-my proj", "memory")
	if got != want {
		t.Errorf("ProjectDir = %q, want %q", got, want)
	}
}

func TestLoadMemory(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "- line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name    string
		content *string
		want    []string
		notWant []string
		empty   bool
	}{
		{name: "no file", empty: true},
		{name: "blank file", content: ptr("\n\n"), empty: true},
		{name: "short file whole", content: ptr(lines(200)), want: []string{"- line 1\n", "- line 200\n"}, notWant: []string{"more lines"}},
		{name: "capped at 200 lines", content: ptr(lines(250)),
			want:    []string{"- line 200\n", "50 more lines not loaded", "edit the file directly", MemoryFile},
			notWant: []string{"- line 201"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, wd := t.TempDir(), t.TempDir()
			if tt.content != nil {
				writeMemory(t, home, wd, *tt.content)
			}
			got, err := LoadMemory(home, wd)
			if err != nil {
				t.Fatal(err)
			}
			if tt.empty != (got == "") {
				t.Fatalf("LoadMemory = %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in %q", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in %q", w, got)
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }

func writeMemory(t *testing.T, home, wd, content string) {
	t.Helper()
	p := MemoryPath(home, wd)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAppendMemory(t *testing.T) {
	date := `\(\d{4}-\d{2}-\d{2}\)`
	tests := []struct {
		name     string
		existing string
		kind     string
		text     string
		wantErr  string
		want     string // regexp the whole file must match
	}{
		{name: "creates file", kind: "decision", text: "Use sqlite",
			want: `^# Memory\n\n- \[decision\] Use sqlite ` + date + `\n$`},
		{name: "default kind, newlines collapsed", text: "  two\nlines\r\n here ",
			want: `^# Memory\n\n- \[fact\] two lines here ` + date + `\n$`},
		{name: "under the heading, before the next section", existing: "# Memory\n\n- old\n\n# Notes\n\nmine\n", kind: "preference", text: "tabs",
			want: `^# Memory\n\n- old\n- \[preference\] tabs ` + date + `\n\n# Notes\n\nmine\n$`},
		{name: "heading added when missing", existing: "hand-written notes\n", text: "x",
			want: `^hand-written notes\n\n# Memory\n\n- \[fact\] x ` + date + `\n$`},
		{name: "empty refused", text: " \n ", wantErr: "empty"},
		{name: "unknown kind refused", kind: "todo", text: "x", wantErr: "unknown kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, wd := t.TempDir(), t.TempDir()
			if tt.existing != "" {
				writeMemory(t, home, wd, tt.existing)
			}
			err := AppendMemory(home, wd, tt.kind, tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if _, err := os.Stat(MemoryPath(home, wd)); !os.IsNotExist(err) {
					t.Errorf("file written after a refusal: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(MemoryPath(home, wd))
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(tt.want).Match(data) {
				t.Errorf("file = %q, want match %q", data, tt.want)
			}
		})
	}
}

func TestAppendMemoryConcurrent(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- AppendMemory(home, wd, "fact", fmt.Sprintf("memory number %d", i)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(MemoryPath(home, wd))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if !strings.Contains(string(data), fmt.Sprintf("memory number %d ", i)) {
			t.Errorf("memory %d lost:\n%s", i, data)
		}
	}
	if c := strings.Count(string(data), "# Memory"); c != 1 {
		t.Errorf("%d headings", c)
	}
}

func TestMemoryNeedsNovaHome(t *testing.T) {
	if err := AppendMemory("", t.TempDir(), "fact", "x"); err == nil {
		t.Error("AppendMemory without NOVA_HOME succeeded")
	}
	if _, err := LoadMemory("", t.TempDir()); err == nil {
		t.Error("LoadMemory without NOVA_HOME succeeded")
	}
}
