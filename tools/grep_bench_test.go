package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// grepBenchTree writes a 20,000-file tree (20 x 20 directories of 50 small
// files) in which one file in 50 holds the needle, and a .gitignore that
// hides one directory in ten.
func grepBenchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*/gen9/\n*.tmp\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var body strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&body, "func helper%d(x int) int { return x * %d } // some ordinary code\n", i, i)
	}
	plain := body.String()
	n := 0
	for i := 0; i < 20; i++ {
		for j := 0; j < 20; j++ {
			dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("gen%d", j%10), fmt.Sprintf("sub%02d", j))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := 0; k < 50; k++ {
				content := plain
				if n%50 == 0 {
					content += "// NEEDLE: the line the benchmark looks for\n"
				}
				n++
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", k)), []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return root
}

// BenchmarkGrep compares the built-in walker with rg on the same tree.
func BenchmarkGrep(b *testing.B) {
	root := grepBenchTree(b)
	env := NewEnv(root)
	_, rgErr := exec.LookPath("rg")
	// 400 files hold the needle; the 40 in ignored gen9 directories must not count.
	for _, c := range []struct{ mode, want string }{
		{"files_with_matches", "Found 360 files"},
		{"content", "NEEDLE: the line"},
	} {
		mode, want := c.mode, c.want
		raw, _ := json.Marshal(map[string]any{"pattern": `NEEDLE:\s+\w+`, "output_mode": mode})
		for _, backend := range []string{"builtin", "rg"} {
			b.Run(mode+"/"+backend, func(b *testing.B) {
				if backend == "rg" && rgErr != nil {
					b.Skip("rg not installed")
				}
				g := &Grep{Backend: backend}
				for i := 0; i < b.N; i++ {
					res, err := g.Run(context.Background(), raw, env)
					if err != nil || res.IsError || !strings.Contains(res.Output, want) {
						b.Fatalf("grep: %v %s", err, ftHead(res.Output))
					}
				}
			})
		}
	}
}
