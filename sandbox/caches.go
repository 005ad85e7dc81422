package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Toolchain caches. The user's own caches (~/.cache/go-build, ~/go/pkg/mod,
// ~/.npm, ~/.cargo/registry, ~/.m2) stay read-only inside the sandbox: what
// is in them runs later outside it (the Go build cache holds compiled
// packages that go build links into the user's programs; the module and
// cargo caches hold the sources an unsandboxed build compiles unchecked),
// so a writable one would let a sandboxed command plant code the user runs.
// Instead each toolchain gets a private cache under Config.Caches, which
// only sandboxed commands use, pointed at by the variable the toolchain
// reads. Go also reads the modules the user already has, read-only, through
// a file:// proxy in front of the configured one, so they resolve offline.

// Cache is one toolchain cache of sandboxed commands: the toolchain, the
// variable that points it there, and the directory.
type Cache struct {
	Tool, Var, Path string
}

// cacheVars are the private caches, by variable, with the directory each
// gets below Config.Caches. MAVEN_OPTS is added apart: it is a list of
// options, not a directory.
var cacheVars = [...]struct{ tool, name, dir string }{
	{"go build", "GOCACHE", "go-build"},
	{"go modules", "GOMODCACHE", "go-mod"},
	{"npm", "npm_config_cache", "npm"},
	{"yarn", "YARN_CACHE_FOLDER", "yarn"},
	{"pnpm", "npm_config_store_dir", "pnpm-store"},
	{"pip", "PIP_CACHE_DIR", "pip"},
	{"cargo", "CARGO_HOME", "cargo"},
	{"gradle", "GRADLE_USER_HOME", "gradle"},
	{"other tools (~/.cache)", "XDG_CACHE_HOME", "xdg"},
}

// cacheSetup is what New makes of Config.Caches and Config.TempDir.
type cacheSetup struct {
	root    string   // the caches' directory, real; "" for none
	caches  []Cache  // for nova doctor
	env     []string // NAME=value, set for every confined command
	tempDir string   // TMPDIR inside; "" keeps /tmp
}

// setupCaches makes the cache directories below cfg.Caches and the
// variables that point the toolchains at them. A cache directory that
// would make the home (or /) writable is refused, as a writable directory
// is. The temporary directory must lie in one of writable.
func setupCaches(cfg Config, home string, writable []string) (cacheSetup, error) {
	var cs cacheSetup
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if cfg.TempDir != "" {
		dir, err := realDir(cfg.TempDir)
		if err != nil {
			return cs, fmt.Errorf("sandbox: temporary directory: %w", err)
		}
		if !slices.ContainsFunc(writable, func(w string) bool { return within(dir, w) }) {
			return cs, fmt.Errorf("sandbox: temporary directory %s is outside the writable directories", dir)
		}
		cs.tempDir = dir
		cs.env = append(cs.env, "TMPDIR="+dir)
	}
	if cfg.Caches == "" {
		return cs, nil
	}
	if err := os.MkdirAll(cfg.Caches, 0o700); err != nil {
		return cs, fmt.Errorf("sandbox: caches: %w", err)
	}
	root, err := realDir(cfg.Caches)
	if err != nil {
		return cs, fmt.Errorf("sandbox: caches: %w", err)
	}
	if root == "/" || home != "" && within(home, root) {
		return cs, fmt.Errorf("sandbox: the caches' directory %s would make your home directory writable; set NOVA_HOME elsewhere", root)
	}
	cs.root = root
	for _, c := range cacheVars {
		p := filepath.Join(root, c.dir)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return cs, fmt.Errorf("sandbox: caches: %w", err)
		}
		cs.caches = append(cs.caches, Cache{Tool: c.tool, Var: c.name, Path: p})
		cs.env = append(cs.env, c.name+"="+p)
	}
	m2 := filepath.Join(root, "m2")
	if err := os.MkdirAll(m2, 0o700); err != nil {
		return cs, fmt.Errorf("sandbox: caches: %w", err)
	}
	cs.caches = append(cs.caches, Cache{Tool: "maven", Var: "MAVEN_OPTS", Path: m2})
	cs.env = append(cs.env, "MAVEN_OPTS="+strings.TrimSpace(getenv("MAVEN_OPTS")+" -Dmaven.repo.local="+m2))
	if proxy := goProxy(getenv, home); proxy != "" {
		cs.env = append(cs.env, "GOPROXY="+proxy)
	}
	return cs, nil
}

// goProxy is GOPROXY for sandboxed commands: the user's module cache, read
// as a proxy (file://), then the proxy the user configured, so a module the
// user already has resolves without the network and one they do not is
// fetched as before. "" leaves GOPROXY as it is: there is no module cache
// to read, or its path cannot be written in a proxy list.
func goProxy(getenv func(string) string, home string) string {
	modcache := goEnv(getenv, home, "GOMODCACHE")
	if modcache == "" {
		gopath := goEnv(getenv, home, "GOPATH")
		if gopath == "" && home != "" {
			gopath = filepath.Join(home, "go")
		}
		if gopath == "" {
			return ""
		}
		first, _, _ := strings.Cut(gopath, string(filepath.ListSeparator))
		modcache = filepath.Join(first, "pkg", "mod")
	}
	download := filepath.Join(modcache, "cache", "download")
	if !filepath.IsAbs(download) || strings.ContainsAny(download, ",|") {
		return ""
	}
	if fi, err := os.Stat(download); err != nil || !fi.IsDir() {
		return ""
	}
	local := "file://" + filepath.ToSlash(download)
	configured := goEnv(getenv, home, "GOPROXY")
	switch configured {
	case "":
		configured = "https://proxy.golang.org,direct"
	case "off":
		return local
	}
	// "," falls through to the next proxy only when this one has no such
	// module (404), which is what the file proxy answers for one it lacks.
	return local + "," + configured
}

// goEnv reads a Go setting as the go command would: the environment, else
// the file `go env -w` writes ($GOENV, or go/env in the user's
// configuration directory).
func goEnv(getenv func(string) string, home, name string) string {
	if v := getenv(name); v != "" {
		return v
	}
	file := getenv("GOENV")
	if file == "off" {
		return ""
	}
	if file == "" {
		cfgDir := getenv("XDG_CONFIG_HOME")
		if cfgDir == "" {
			if home == "" {
				return ""
			}
			cfgDir = filepath.Join(home, ".config")
		}
		file = filepath.Join(cfgDir, "go", "env")
	}
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Caches lists the private toolchain caches of sandboxed commands; none
// when the sandbox has no caches' directory.
func (s *Sandbox) Caches() []Cache { return slices.Clone(s.cache.caches) }

// Env returns the variables, NAME=value, that every confined command gets
// on top of its own environment: the private caches, GOPROXY reading the
// user's modules, and TMPDIR. A shell that restores its saved state sets
// them again afterwards; a command run outside the sandbox must not get
// them (what the sandbox wrote there would run outside it).
func (s *Sandbox) Env() []string { return slices.Clone(s.cache.env) }

// TempDir is TMPDIR inside the sandbox: the session's private temporary
// directory, or /tmp (bwrap's, private to each command) when there is none.
func (s *Sandbox) TempDir() string {
	if s.cache.tempDir != "" {
		return s.cache.tempDir
	}
	return "/tmp"
}

// Writable lists the directories a sandboxed command may write: the
// workspace first, the added directories, and the caches' directory.
func (s *Sandbox) Writable() []string {
	out := slices.Clone(s.writable)
	if s.cache.root != "" {
		out = append(out, s.cache.root)
	}
	return out
}

// withEnv returns environ (nil: nova's own) with the variables of set
// put over it, in environ's order and then set's.
func withEnv(environ, set []string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	names := make(map[string]bool, len(set))
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); !names[name] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}
