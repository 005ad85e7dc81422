package permission

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheckAgainstInterpreter holds the shell analysis to what a real
// shell does with the same command. mvdan.cc/sh's interpreter expands and
// runs the command with every program and every file open intercepted
// (nothing runs for real); whenever the checker allowed the command
// unasked, each program the interpreter would start must be one the
// checker allows on its own, in the directory the interpreter was in, and
// every file it opens must be inside the workspace (or /dev/null for
// writes). A walker that misreads an expansion, a brace, a quote or a cd
// lets through a program or a path the interpreter then reaches.
func FuzzCheckAgainstInterpreter(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	ws, home := fuzzWorld(f)
	c, err := NewChecker(Config{Workspace: ws, Home: home, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 2000 || strings.ContainsRune(cmd, 0) {
			return
		}
		d := c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: cmd, Workdir: ws})
		if d.Behavior != Allow {
			return
		}
		for _, ev := range interpret(t, cmd, ws, home) {
			switch {
			case ev.argv != nil:
				quoted := make([]string, len(ev.argv))
				for i, a := range ev.argv {
					if ev.pipes[i] {
						quoted[i] = "<(true)" // a process substitution's pipe, as the program sees it
						continue
					}
					q, err := syntax.Quote(a, syntax.LangBash)
					if err != nil {
						return // not something a word can hold
					}
					quoted[i] = q
				}
				line := strings.Join(quoted, " ")
				if sd := c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: line, Workdir: ev.dir}); sd.Behavior != Allow {
					t.Fatalf("%q was allowed (%s), but a shell runs %q in %s, which is not (%s: %s)", cmd, d.Reason, line, ev.dir, sd.Behavior, sd.Reason)
				}
			default:
				// The interpreter does not glob a redirection's target
				// (bash does, when unquoted), so such a target tells
				// nothing about what bash would open.
				if strings.ContainsAny(ev.path, "*?[") {
					continue
				}
				for _, p := range []string{ev.path} {
					real := physicalPath(p)
					switch {
					case ignoredPath(p) || ignoredPath(real):
					case ev.write:
						t.Fatalf("%q was allowed (%s), but a shell writes %s", cmd, d.Reason, p)
					case !within(real, ws):
						t.Fatalf("%q was allowed (%s), but a shell reads %s", cmd, d.Reason, p)
					}
				}
			}
		}
	})
}

// shellEvent is one program start or file open the interpreter made.
type shellEvent struct {
	argv  []string
	pipes []bool // which of argv are the interpreter's pipes for <(...)
	dir   string
	path  string
	write bool
}

// interpret runs cmd in mvdan.cc/sh's interpreter with nothing executed
// and nothing opened, returning what it would have started and opened.
func interpret(t *testing.T, cmd, ws, home string) []shellEvent {
	t.Helper()
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	var (
		mu  sync.Mutex // the interpreter runs the sides of a pipeline at once
		evs []shellEvent
	)
	exec := func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			hc := interp.HandlerCtx(ctx)
			mu.Lock()
			pipes := make([]bool, len(args))
			for i, a := range args {
				pipes[i] = isInterpPipe(a)
			}
			evs = append(evs, shellEvent{argv: append([]string(nil), args...), pipes: pipes, dir: hc.Dir})
			mu.Unlock()
			return nil
		}
	}
	open := func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
		hc := interp.HandlerCtx(ctx)
		if !filepath.IsAbs(path) {
			path = filepath.Join(hc.Dir, path)
		}
		mu.Lock()
		evs = append(evs, shellEvent{path: path, write: flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0})
		mu.Unlock()
		return nopRWC{}, nil
	}
	env := expand.ListEnviron("HOME="+home, "PATH=/usr/bin:/bin", "PWD="+ws)
	r, err := interp.New(interp.ExecHandlers(exec), interp.OpenHandler(open), interp.Dir(ws), interp.Env(env),
		interp.StdIO(bytes.NewReader(nil), io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	func() {
		// The interpreter has bugs of its own ("+=[" panics in
		// lookupVar): what it cannot run tells nothing about bash.
		defer func() { _ = recover() }()
		_ = r.Run(ctx, file) // errors (a failed cd, exit 1) are what a shell would meet too
	}()
	mu.Lock()
	defer mu.Unlock()
	return append([]shellEvent(nil), evs...)
}

// isInterpPipe reports whether an argument is the named pipe the
// interpreter made for a process substitution (bash passes /dev/fd/N): a
// FIFO of its own that exists while the command runs. Text glued to the
// substitution (<(...)x) names no such FIFO.
func isInterpPipe(arg string) bool {
	dir, name := filepath.Split(arg)
	if filepath.Clean(dir) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(name, "sh-interp-") {
		return false
	}
	fi, err := os.Lstat(arg)
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

type nopRWC struct{}

func (nopRWC) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopRWC) Write(p []byte) (int, error) { return len(p), nil }
func (nopRWC) Close() error                { return nil }

// fuzzWorld makes a small real workspace with a link out of it.
func fuzzWorld(f *testing.F) (ws, home string) {
	root := f.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	ws, home = filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(ws, "src"), filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for p, data := range map[string]string{filepath.Join(ws, "a.txt"): "a", filepath.Join(ws, "src", "b.go"): "b", filepath.Join(home, ".ssh", "id_rsa"): "k"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(home, filepath.Join(ws, "out")); err != nil {
		f.Fatal(err)
	}
	return ws, home
}

// fuzzSeeds are the commands of the decision corpus and a few shapes the
// audit's classes take.
func fuzzSeeds() []string {
	seeds := []string{
		"ls", "cat a.txt", "cd src && cat b.go", "cat {a,b}.txt", "sort {-o,x} a.txt", "x=1; echo $((x))", "cat out/../a.txt",
		"cat src/*", "for f in *.txt; do wc -l \"$f\"; done", "echo $(ls)", "git status", "grep -r a .", "cd out; ls", "echo ${x:-a}",
		"a=src; cd $a; ls", "cat < a.txt", "ls > /dev/null", "find . -name '*.go'", "sed -n 1p a.txt", "head -c 3 a.txt",
	}
	data, err := os.ReadFile("testdata/commands.tsv")
	if err != nil {
		return seeds
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, _, _ := strings.Cut(line, "\t")
		seeds = append(seeds, cmd)
	}
	return seeds
}
