package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// glamour links chroma, so Go runs chroma's package initialisers before
// every nova command, --version included. nova builds chroma from
// third_party/chroma, a copy patched (lazy.patch) to parse its embedded
// lexers and styles on first use instead; these tests keep it so.

const chromaModule = "github.com/alecthomas/chroma/v2"

// chromaAtInit is what chroma's registries held when this test binary's
// initialisers ran: after chroma's own, before any test used chroma.
var chromaAtInit = struct{ lexers, styles int }{len(lexers.GlobalLexerRegistry.Lexers), len(styles.Registry)}

// initTraceLine is one line of GODEBUG=inittrace=1:
// "init pkg @1.2 ms, 0.5 ms clock, 1234 bytes, 56 allocs".
var initTraceLine = regexp.MustCompile(`^init (\S+) @\S+ ms, (\S+) ms clock, (\d+) bytes, (\d+) allocs$`)

// TestStartupLeavesChromaLazy runs the real binary under the runtime's init
// trace and bounds what chroma's initialisers allocate. Parsing the embedded
// definitions at init (upstream chroma) allocates about 4.7 MB in 71,000
// allocations; the patched copy, 0.3 MB in 1,400 (the lexers written in Go
// still register at init).
func TestStartupLeavesChromaLazy(t *testing.T) {
	const maxBytes, maxAllocs = 512 << 10, 2500
	cmd := exec.Command(novaBin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("nova --version: %v\n%s%s", err, out, stderr.String())
	}
	var bytesTotal, allocsTotal int
	var lines []string
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initTraceLine.FindStringSubmatch(sc.Text())
		if m == nil || (m[1] != chromaModule && !strings.HasPrefix(m[1], chromaModule+"/")) {
			continue
		}
		b, _ := strconv.Atoi(m[3])
		a, _ := strconv.Atoi(m[4])
		bytesTotal += b
		allocsTotal += a
		lines = append(lines, sc.Text())
	}
	if len(lines) == 0 {
		t.Fatalf("no chroma package in the init trace of nova --version; if chroma is no longer linked, drop third_party/chroma and this test:\n%s", stderr.String())
	}
	t.Logf("chroma's initialisers: %d bytes, %d allocs\n%s", bytesTotal, allocsTotal, strings.Join(lines, "\n"))
	if bytesTotal > maxBytes || allocsTotal > maxAllocs {
		t.Errorf("chroma's initialisers allocate %d bytes in %d allocs at start-up (bound %d bytes, %d allocs): "+
			"its embedded lexers or styles are parsed before main again; see third_party/chroma/NOVA.md\n%s",
			bytesTotal, allocsTotal, maxBytes, maxAllocs, strings.Join(lines, "\n"))
	}
}

// TestChromaRegistersEmbeddedOnFirstUse checks the registries themselves: at
// init they hold only what is defined in Go (about 20 lexers, no style); the
// 270-odd embedded lexers and 70-odd styles come with the first lookup.
func TestChromaRegistersEmbeddedOnFirstUse(t *testing.T) {
	if chromaAtInit.styles > 0 {
		t.Errorf("%d styles were registered at init, want none before the first lookup", chromaAtInit.styles)
	}
	nLexers, nStyles := len(lexers.Names(false)), len(styles.Names())
	t.Logf("at init: %d lexers, %d styles; after the first lookup: %d lexers, %d styles", chromaAtInit.lexers, chromaAtInit.styles, nLexers, nStyles)
	if nLexers < chromaAtInit.lexers+200 {
		t.Errorf("%d lexers were registered at init, %d after the first lookup: the embedded lexers were loaded at init", chromaAtInit.lexers, nLexers)
	}
	if nStyles < 50 {
		t.Errorf("only %d styles after the first lookup", nStyles)
	}
	// What glamour asks for works.
	if l := lexers.Get("go"); l == nil || l.Config().Name != "Go" {
		t.Errorf(`lexers.Get("go") = %v`, l)
	}
	if l := lexers.Get("dns"); l == nil || l.AnalyseText("@ IN SOA ns.example. admin.example. 1 2 3 4 5") != 1 {
		t.Errorf("the dns lexer lost its analyser")
	}
	if s := styles.Get("monokai"); s == nil || s.Name != "monokai" {
		t.Errorf(`styles.Get("monokai") = %v`, s)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod := strings.TrimSpace(string(goCmd(t, ".", "env", "GOMOD")))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not in a module")
	}
	return filepath.Dir(gomod)
}

func goCmd(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}
