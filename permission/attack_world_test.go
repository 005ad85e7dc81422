package permission_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/sandbox"
)

// harness is what every case of one test run shares: the secret token,
// the workspace marker, a template repository to copy and the sandbox
// probe. Cases share no files.
type harness struct {
	token    string // the secret planted in the fake homes (and ws/.env)
	wsmark   string // a harmless marker in every workspace, for controls
	template string // a git workspace to copy: README.md, src/app.txt, one commit
	preload  string // evil.so, built once when gcc exists
	gocache  string
	path     string // PATH for commands: no pyenv shims, no ~/bin
	probe    *sandbox.Report
	tmp      string // parent of every case root
	bridge   string // this test binary, the sandbox's network bridge
}

// newHarness builds what cases share. It points HOME and NOVA_HOME at a
// decoy directory for the whole test, so nothing reaches the real home
// even if something read the process's home rather than the case's.
func newHarness(t *testing.T) *harness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	decoy := filepath.Join(tmp, "process-home")
	if err := os.MkdirAll(decoy, 0o755); err != nil {
		t.Fatal(err)
	}
	gocache := os.Getenv("GOCACHE")
	if gocache == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			gocache = strings.TrimSpace(string(out))
		}
	}
	t.Setenv("HOME", decoy)
	t.Setenv("NOVA_HOME", filepath.Join(decoy, ".nova"))
	h := &harness{token: "NOVATOKEN" + randHex(8), wsmark: "WSMARK" + randHex(6), gocache: gocache, tmp: tmp, path: commandPath()}
	if exe, err := os.Executable(); err == nil {
		h.bridge = exe
	}
	h.template = filepath.Join(tmp, "template")
	if err := h.buildTemplate(); err != nil {
		t.Fatalf("template workspace: %v", err)
	}
	if _, err := exec.LookPath("gcc"); err == nil {
		h.preload = filepath.Join(tmp, "evil.so")
		if err := buildPreload(h.preload, filepath.Join(tmp, "evil.c")); err != nil {
			t.Logf("no LD_PRELOAD library (%v): preload cases will not escape", err)
			h.preload = ""
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	r := sandbox.Probe(ctx)
	cancel()
	h.probe = &r
	return h
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails: crypto/rand crashes the program instead
	return hex.EncodeToString(b)
}

// commandPath is the PATH commands get: the directory of the go command
// and the system directories, without shims that depend on HOME.
func commandPath() string {
	dirs := []string{}
	if g, err := exec.LookPath("go"); err == nil {
		dirs = append(dirs, filepath.Dir(g))
	}
	return strings.Join(append(dirs, "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"), ":")
}

// gitEnv is the environment of the harness's own git commands.
func (h *harness) gitEnv(home string) []string {
	env := []string{"HOME=" + home, "PATH=" + h.path, "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	return env
}

func (h *harness) buildTemplate() error {
	ws := h.template
	for _, d := range []string{ws, filepath.Join(ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("project readme "+h.wsmark+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "app.txt"), []byte("app source APPMARK\n"), 0o644); err != nil {
		return err
	}
	empty := filepath.Join(h.tmp, "git-template")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return err
	}
	env := append(h.gitEnv(h.tmp), "GIT_CONFIG_GLOBAL=/dev/null")
	for _, args := range [][]string{
		{"init", "-q", "--template=" + empty, "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init " + h.wsmark},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	for _, d := range []string{".git/hooks", ".git/info"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git/info/exclude"), nil, 0o644); err != nil {
		return err
	}
	cmd := exec.Command("git", "clone", "-q", "--bare", "--template="+empty, ws, ws+".remote.git")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("bare clone: %v: %s", err, out)
	}
	return nil
}

// buildPreload compiles a library whose constructor leaves a file beside
// the workspace, the shape of an LD_PRELOAD attack shipped in a repository.
func buildPreload(out, src string) error {
	code := `#include <stdio.h>
__attribute__((constructor)) static void init(void) {
	FILE *f = fopen("../outside/preload-ran", "w");
	if (f) { fputs("ran\n", f); fclose(f); }
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("gcc", "-shared", "-fPIC", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("gcc: %v: %s", err, b)
	}
	return nil
}

// world is one case's throwaway machine: root/ws, root/home, root/outside,
// and the shell's scratch and spill directories.
type world struct {
	root, ws, home, outside, scratch, spill string
	vars                                    map[string]string

	tcp, unix *listener
	// allowed is the HTTP server on 127.0.0.2 that a filtered network's
	// positive controls reach through the proxy ({{okport}}); nil unless
	// the case filters the network. Reaching it is no escape.
	allowed *http.Server
}

// listener counts the connections it accepts. Accept takes connections
// from the kernel's queue in order, so once the harness's own fence
// connection is accepted, every connection made before it has been
// counted.
type listener struct {
	l        net.Listener
	accepted chan string // remote address of each connection, in order
	done     chan struct{}
}

func listen(network, addr string) (*listener, error) {
	l, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	ln := &listener{l: l, accepted: make(chan string, 1024), done: make(chan struct{})}
	go func() {
		defer close(ln.done)
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			// The connection is the escape; closing at once keeps
			// clients from waiting for an answer.
			from := conn.RemoteAddr().String()
			conn.Close()
			select {
			case ln.accepted <- from:
			default: // a flood; the count is high enough already
			}
		}
	}()
	return ln, nil
}

// hits returns how many connections arrived before this call: it makes a
// fence connection from a known address and counts what was accepted
// before it.
func (ln *listener) hits(fenceFrom net.Addr) (int, error) {
	d := net.Dialer{LocalAddr: fenceFrom, Timeout: 5 * time.Second}
	conn, err := d.Dial(ln.l.Addr().Network(), ln.l.Addr().String())
	if err != nil {
		// The socket file is gone (an attack removed the home, which the
		// snapshot reports): count what was queued without a fence.
		return len(ln.accepted), nil
	}
	me := conn.LocalAddr().String()
	conn.Close()
	n := 0
	deadline := time.After(10 * time.Second) // a safety net, not a synchronisation
	for {
		select {
		case from := <-ln.accepted:
			if from == me {
				return n, nil
			}
			n++
		case <-deadline:
			return n, errors.New("the fence connection was never accepted")
		}
	}
}

func (ln *listener) close() {
	ln.l.Close()
	<-ln.done
}

// newWorld lays out a case root and starts the listeners.
func (h *harness) newWorld(c *attackCase) (*world, error) {
	root, err := os.MkdirTemp(h.tmp, "c")
	if err != nil {
		return nil, err
	}
	w := &world{root: root, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"), scratch: filepath.Join(root, "scratch"), spill: filepath.Join(root, "spill")}
	s := c.setup()
	if s.NoGit {
		err = os.MkdirAll(w.ws, 0o755)
		if err == nil {
			err = copyTree(filepath.Join(h.template, "README.md"), filepath.Join(w.ws, "README.md"))
		}
		if err == nil {
			err = copyTree(filepath.Join(h.template, "src"), filepath.Join(w.ws, "src"))
		}
	} else {
		err = copyTree(h.template, w.ws)
	}
	if err != nil {
		return nil, fmt.Errorf("copy workspace: %w", err)
	}
	for _, d := range []string{w.home, w.outside, w.scratch, w.spill, filepath.Join(w.home, ".ssh"), filepath.Join(w.home, ".aws")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + h.token + "\n-----END OPENSSH PRIVATE KEY-----\n"
	files := map[string]string{
		"home/.ssh/id_rsa":      key,
		"home/.ssh/id_ed25519":  key,
		"home/.aws/credentials": "[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = " + h.token + "\n",
		"home/.bashrc":          "# rc\nexport PS1='$ '\n",
		"home/.gitconfig":       "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n",
		"home/.netrc":           "machine example.com login u password " + h.token + "\n",
		"home/.pypirc":          "[pypi]\n\tusername = u\n\tpassword = " + h.token + "\n",
		"home/notes.txt":        "notes\n",
		// Go writes telemetry counters under the config home unless the
		// mode file says off; that write is Go's, not an attack's.
		"home/.config/go/telemetry/mode": "off\n",
		"outside/keep.txt":               "untouched\n",
		"outside/other/secret.txt":       "other project " + h.token + "\n",
	}
	if s.Dotenv {
		files["ws/.env"] = "API_TOKEN=" + h.token + "\n"
	}
	if s.Go {
		files["ws/go.mod"] = "module example.com/atk\n\ngo 1.21\n"
		files["ws/atk_test.go"] = "package atk\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) { t.Log(\"GOTESTMARK\") }\n"
	}
	for p, content := range files {
		if err := writeFile(filepath.Join(root, p), content, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(filepath.Join(w.home, ".ssh", "id_rsa"), 0o600); err != nil {
		return nil, err
	}

	// Listeners: any connection at all is an escape.
	if w.tcp, err = listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	sock := filepath.Join(w.home, "agent.sock")
	if w.unix, err = listen("unix", sock); err != nil {
		w.tcp.close()
		return nil, err
	}

	w.vars = map[string]string{
		"ws": w.ws, "home": w.home, "outside": w.outside, "root": w.root,
		"port": fmt.Sprint(w.tcp.l.Addr().(*net.TCPAddr).Port), "sock": sock,
		"remote": filepath.Join(w.outside, "remote.git"), "wsmark": h.wsmark,
	}
	if len(c.config().AllowedDomains) > 0 {
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			w.close()
			return nil, fmt.Errorf("the allowed host's server (127.0.0.2): %w", err)
		}
		w.allowed = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(rw, "ALLOWED-HOST-BODY")
		})}
		go w.allowed.Serve(ln)
		w.vars["okport"] = fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	}
	if err := h.plant(w, s); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *world) close() {
	w.tcp.close()
	w.unix.close()
	if w.allowed != nil {
		w.allowed.Close()
	}
}

// connections counts what reached the TCP and Unix listeners.
func (w *world) connections() (tcp, unix int, err error) {
	if tcp, err = w.tcp.hits(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
		return 0, 0, err
	}
	unix, err = w.unix.hits(&net.UnixAddr{Name: filepath.Join(w.scratch, "fence.sock"), Net: "unix"})
	return tcp, unix, err
}

// plant adds what the case's setup asks for, after the standard layout.
func (h *harness) plant(w *world, s setupSpec) error {
	abs := func(p string) string { return filepath.Join(w.root, expand(p, w.vars)) }
	if s.Remote {
		// A copy of the template's bare clone: the same commit, no git runs.
		if err := copyTree(h.template+".remote.git", w.vars["remote"]); err != nil {
			return fmt.Errorf("remote: %w", err)
		}
		f, err := os.OpenFile(filepath.Join(w.ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f, "[remote \"origin\"]\n\turl = %s\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", w.vars["remote"])
		f.Close()
		if err != nil {
			return err
		}
	}
	for _, p := range s.Remove {
		if err := os.RemoveAll(abs(p)); err != nil {
			return err
		}
	}
	for _, d := range s.Dirs {
		if err := os.MkdirAll(abs(d), 0o755); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(s.Files))
	for p := range s.Files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		content := strings.ReplaceAll(expand(s.Files[p], w.vars), "{{token}}", h.token)
		if n := s.Repeat[p]; n > 1 {
			content = strings.Repeat(content, n)
		}
		if err := writeFile(abs(p), content, 0o644); err != nil {
			return err
		}
	}
	for _, p := range s.Exec {
		if err := os.Chmod(abs(p), 0o755); err != nil {
			return err
		}
	}
	for link, target := range s.Symlinks {
		l := abs(link)
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(expand(target, w.vars), l); err != nil {
			return err
		}
	}
	if s.Preload {
		if h.preload == "" {
			return errors.New("setup preload needs gcc")
		}
		if err := copyTree(h.preload, filepath.Join(w.ws, "evil.so")); err != nil {
			return err
		}
	}
	for _, line := range s.Sh {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", expand(line, w.vars))
		cmd.Dir, cmd.Env = w.ws, h.gitEnv(w.home)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			return fmt.Errorf("setup sh %q: %v: %s", line, err, out)
		}
	}
	if s.Commit || s.Dirty {
		if err := h.git(w, "add", "-A"); err != nil {
			return err
		}
		if err := h.git(w, "commit", "-q", "--allow-empty", "-m", "planted"); err != nil {
			return err
		}
	}
	if s.Dirty {
		f, err := os.OpenFile(filepath.Join(w.ws, "README.md"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString("a change\n")
		f.Close()
		if err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(s.GitConfig))
	for k := range s.GitConfig {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := h.git(w, "config", k, expand(s.GitConfig[k], w.vars)); err != nil {
			return err
		}
	}
	return nil
}

// git runs git in the workspace as the user would, outside any sandbox.
func (h *harness) git(w *world, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = w.ws, h.gitEnv(w.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func writeFile(p, content string, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), mode)
}

// copyTree copies a file or directory tree, keeping modes and symlinks.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// snapshot records every entry under root except the skipped top-level
// names: kind, mode, size, content hash and link target.
func snapshot(root string, skip ...string) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if err != nil {
			if p != root { // a root that does not exist has nothing to record
				out[rel] = "unreadable: " + err.Error()
			}
			return nil
		}
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		var v string
		switch m := info.Mode(); {
		case m&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v = "link -> " + l
		case m.IsRegular():
			b, _ := os.ReadFile(p)
			v = fmt.Sprintf("file %v %x", m.Perm(), sha256.Sum256(b))
		default:
			v = m.String()
		}
		out[rel] = v
		return nil
	})
	return out
}

// diffSnapshots names what was added, removed or changed.
func diffSnapshots(before, after map[string]string, prefix string) []string {
	var out []string
	for k, v := range after {
		if old, ok := before[k]; !ok {
			out = append(out, "+"+prefix+k)
		} else if old != v {
			out = append(out, "~"+prefix+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, "-"+prefix+k)
		}
	}
	sort.Strings(out)
	return out
}

// laterNames are the workspace paths other programs run later as the
// user, outside any sandbox: nova's and Claude Code's settings, skills
// and MCP servers, editors' tasks and settings, direnv, husky, pre-commit,
// CI workflows and shell start-up files. The harness keeps its own list,
// so that a path dropped from permission.RunsLater still trips it.
func laterNames() []string {
	return []string{".nova", ".claude", ".mcp.json", ".vscode", ".idea", ".cursor", ".devcontainer", ".envrc", ".husky",
		".pre-commit-config.yaml", ".github/workflows", ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zshenv", ".config/fish"}
}

// protectedSnapshot records the workspace paths that run code or hold
// settings: git's hooks, config, info, commondir, modules and
// config.worktree, and the laterNames.
func protectedSnapshot(ws string) map[string]string {
	out := map[string]string{}
	for _, p := range append([]string{".git/hooks", ".git/config", ".git/info", ".git/commondir", ".git/modules", ".git/config.worktree"}, laterNames()...) {
		for k, v := range snapshot(filepath.Join(ws, p)) {
			// Directories alone run nothing (the sandbox leaves an empty
			// .git/hooks behind on purpose, docs/sandbox.md); leftovers
			// in the paths that run later are clutter, checked apart.
			if strings.HasPrefix(v, "file ") || strings.HasPrefix(v, "link ") {
				out[filepath.Join(p, k)] = v
			}
		}
	}
	return out
}

// laterPresent lists which laterNames exist in ws.
func laterPresent(ws string) map[string]bool {
	out := map[string]bool{}
	for _, p := range laterNames() {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			out[p] = true
		}
	}
	return out
}

// secretForms are the spellings of the token a leak may take: plain,
// reversed, hex and base64 at each alignment. Output is searched with
// its whitespace removed, so wrapped hex and base64 are found too.
func secretForms(token string, files ...string) []string {
	rev := []rune(token)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	forms := []string{token, string(rev), hex.EncodeToString([]byte(token)), strings.ToUpper(hex.EncodeToString([]byte(token)))}
	for pad := 0; pad < 3; pad++ {
		b := base64.StdEncoding.EncodeToString(append(make([]byte, pad), token...))
		start := 0
		if pad > 0 {
			start = 4
		}
		forms = append(forms, b[start:len(b)-4])
	}
	for _, f := range files {
		forms = append(forms, strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(f)), "="))
	}
	return forms
}

// leaks reports the first form of the secret found in text.
func leaks(text string, forms []string) string {
	squeezed := strings.Join(strings.Fields(text), "")
	for _, f := range forms {
		if strings.Contains(text, f) || strings.Contains(squeezed, f) {
			return f
		}
	}
	return ""
}

// racer swaps dir between a real directory and a symlink to target until
// stop is closed; done is closed once dir is a real directory again.
func racer(dir, target string, stop <-chan struct{}) (done <-chan struct{}) {
	d := make(chan struct{})
	go func() {
		defer close(d)
		for i := 0; ; i++ {
			select {
			case <-stop:
				_ = os.Remove(dir)
				_ = os.MkdirAll(dir, 0o755)
				return
			default:
			}
			if i%2 == 0 {
				_ = os.RemoveAll(dir)
				_ = os.Symlink(target, dir)
			} else {
				_ = os.Remove(dir)
				_ = os.Mkdir(dir, 0o755)
			}
		}
	}()
	return d
}
