package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Go runs the initialisers of every linked package before main, so what
// they cost every nova command pays, --version included. These budgets
// are read from the runtime's own init trace (GODEBUG=inittrace=1), not
// from a wall clock: allocations are exact, and a package's clock time is
// the least of several runs, so a loaded machine does not fail the test.
const (
	// initPackageClockMS bounds one package's initialiser (now: under
	// 1 ms each; jsonschema/v6 compiling every draft's meta-schema at init
	// was 5-13 ms).
	initPackageClockMS = 2.0
	// initPackageBytes bounds one package's allocations at init (now:
	// under 0.3 MB each; bluemonday/css was 0.5 MB before
	// third_party/glamour, jsonschema/v6 unpatched 1.7 MB).
	initPackageBytes = 1 << 20
	// initTotalBytes and initTotalAllocs bound all initialisers together
	// (now 2.1 MB in 12,300 allocations; 3.2 MB in 21,000 before
	// third_party/glamour, 4.9 MB in 42,000 before third_party/jsonschema).
	initTotalBytes, initTotalAllocs = 5 << 19, 16000
	// initTotalClockMS bounds the least total clock of the runs (now 5-6 ms
	// on a 2-core machine under load, 7-9 ms before third_party/glamour,
	// 17 ms before third_party/jsonschema). Wall time is a benchmark's
	// business; this only catches a gross regression without flaking.
	initTotalClockMS = 15.0
)

// initCost is one package's line of the init trace.
type initCost struct {
	clockMS       float64
	bytes, allocs int
}

// TestStartupInitBudget runs `nova --version` under GODEBUG=inittrace=1 and
// fails when a package's initialiser, or all of them together, grows past
// its budget. It runs at least three times and up to eight, keeping each
// package's least clock, until every package is within budget.
func TestStartupInitBudget(t *testing.T) {
	bin := novaBin
	if raceBuild {
		// The race detector slows every initialiser several times over:
		// measure a plain build.
		bin = filepath.Join(t.TempDir(), "nova")
		build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	least := map[string]initCost{}
	var lastTrace string
	leastTotal := -1.0
	for run := 1; run <= 8; run++ {
		trace, costs := initTrace(t, bin)
		lastTrace = trace
		total := 0.0
		for pkg, c := range costs {
			total += c.clockMS
			if l, ok := least[pkg]; !ok || c.clockMS < l.clockMS {
				least[pkg] = c
			}
		}
		if leastTotal < 0 || total < leastTotal {
			leastTotal = total
		}
		if run >= 3 && len(initOverBudget(least, leastTotal)) == 0 {
			break
		}
	}
	if len(least) < 50 {
		t.Fatalf("the init trace names %d packages; is GODEBUG=inittrace=1 still read?\n%s", len(least), lastTrace)
	}
	totalBytes, totalAllocs := 0, 0
	for _, c := range least {
		totalBytes += c.bytes
		totalAllocs += c.allocs
	}
	t.Logf("init: least total clock %.2f ms, %d bytes, %d allocs over %d packages; the largest:\n%s",
		leastTotal, totalBytes, totalAllocs, len(least), initTop(least, 8))
	for _, msg := range initOverBudget(least, leastTotal) {
		t.Error(msg)
	}
	if totalBytes > initTotalBytes || totalAllocs > initTotalAllocs {
		t.Errorf("all initialisers together allocate %d bytes in %d allocs (budget %d bytes, %d allocs)",
			totalBytes, totalAllocs, initTotalBytes, initTotalAllocs)
	}
}

// initTrace runs bin --version with the init trace on and returns the
// trace and each package's cost.
func initTrace(t *testing.T, bin string) (string, map[string]initCost) {
	t.Helper()
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("nova --version: %v\n%s%s", err, out, stderr.String())
	}
	costs := map[string]initCost{}
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		m := initTraceLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		clock, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		b, _ := strconv.Atoi(m[3])
		a, _ := strconv.Atoi(m[4])
		// A package can appear more than once (its init split up); sum.
		c := costs[m[1]]
		costs[m[1]] = initCost{clockMS: c.clockMS + clock, bytes: c.bytes + b, allocs: c.allocs + a}
	}
	return stderr.String(), costs
}

// initOverBudget says which packages are over their budget.
func initOverBudget(least map[string]initCost, leastTotal float64) []string {
	var msgs []string
	for pkg, c := range least {
		if c.clockMS > initPackageClockMS {
			msgs = append(msgs, fmt.Sprintf("%s's initialiser takes %.2f ms at least (budget %.1f ms): make it lazy (see third_party/jsonschema/NOVA.md)", pkg, c.clockMS, initPackageClockMS))
		}
		if c.bytes > initPackageBytes {
			msgs = append(msgs, fmt.Sprintf("%s's initialiser allocates %d bytes (budget %d)", pkg, c.bytes, initPackageBytes))
		}
	}
	if leastTotal > initTotalClockMS {
		msgs = append(msgs, fmt.Sprintf("all initialisers together take %.2f ms at least (budget %.1f ms)", leastTotal, initTotalClockMS))
	}
	sort.Strings(msgs)
	return msgs
}

// initTop lists the n packages with the largest least clock.
func initTop(least map[string]initCost, n int) string {
	pkgs := make([]string, 0, len(least))
	for pkg := range least {
		pkgs = append(pkgs, pkg)
	}
	sort.Slice(pkgs, func(i, j int) bool { return least[pkgs[i]].clockMS > least[pkgs[j]].clockMS })
	var b strings.Builder
	for _, pkg := range pkgs[:min(n, len(pkgs))] {
		c := least[pkg]
		fmt.Fprintf(&b, "  %.2f ms %8d bytes %6d allocs  %s\n", c.clockMS, c.bytes, c.allocs, pkg)
	}
	return b.String()
}

const jsonschemaModule = "github.com/santhosh-tekuri/jsonschema/v6"

// TestJSONSchemaMetaSchemasOnFirstUse: third_party/jsonschema compiles the
// drafts' meta-schemas on first use instead of at init; a schema is still
// checked against its draft's meta-schema (the check that needs them), and
// values against the schema.
func TestJSONSchemaMetaSchemasOnFirstUse(t *testing.T) {
	for _, draft := range []string{"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"} {
		c := jsonschema.NewCompiler()
		if err := c.AddResource("bad.json", map[string]any{"$schema": draft, "type": 5}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("bad.json"); err == nil {
			t.Errorf("%s: a schema with \"type\": 5 compiled; it is not valid against the draft's meta-schema", draft)
		}
		if err := c.AddResource("good.json", map[string]any{"$schema": draft, "type": "object",
			"properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"}}); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("good.json")
		if err != nil {
			t.Fatalf("%s: %v", draft, err)
		}
		if err := sch.Validate(map[string]any{"n": 1.0}); err != nil {
			t.Errorf("%s: {\"n\": 1} rejected: %v", draft, err)
		}
		if err := sch.Validate(map[string]any{}); err == nil {
			t.Errorf("%s: {} accepted without its required n", draft)
		}
	}
}
