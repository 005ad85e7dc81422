package permission

import (
	"reflect"
	"runtime"
	"testing"
)

// benchConfig is a checker configuration like the one a served session
// builds: a workspace, a home and a few rules.
func benchConfig(b testing.TB) Config {
	dir := b.TempDir()
	return Config{
		Workspace: dir,
		Home:      dir,
		Rules:     Rules{Allow: []string{"Bash(go test:*)", "Read(src/**)"}, Deny: []string{"Read(./secrets/**)"}},
	}
}

// TestCheckersShareCommandTable holds issue 27's fix: the command table is
// parsed once per process, so a second Checker holds the same table, not a
// copy of it.
func TestCheckersShareCommandTable(t *testing.T) {
	cfg := benchConfig(t)
	a, err := NewChecker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewChecker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.specs) == 0 {
		t.Fatal("the checker has no command table")
	}
	if reflect.ValueOf(a.specs).Pointer() != reflect.ValueOf(b.specs).Pointer() {
		t.Fatal("each Checker parsed its own command table")
	}
	if a.specs["git"] != b.specs["git"] {
		t.Fatal("the git spec differs between two Checkers")
	}
}

// BenchmarkNewChecker is what a Checker costs to build once the command
// table is parsed (every session, subagent and served session builds one).
func BenchmarkNewChecker(b *testing.B) {
	cfg := benchConfig(b)
	sharedSpecs()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewChecker(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommandTableParse is what parsing the table costs, paid once
// per process.
func BenchmarkCommandTableParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(commandSpecs()) == 0 {
			b.Fatal("empty table")
		}
	}
}

// BenchmarkCheckerRetainedHeap reports the heap a live Checker keeps
// (retained-B/checker): 200 Checkers held at once, as 200 idle served
// sessions hold them.
func BenchmarkCheckerRetainedHeap(b *testing.B) {
	cfg := benchConfig(b)
	sharedSpecs()
	const n = 200
	var perChecker float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		held := make([]*Checker, n)
		for i := range held {
			c, err := NewChecker(cfg)
			if err != nil {
				b.Fatal(err)
			}
			held[i] = c
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perChecker = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		runtime.KeepAlive(held)
	}
	b.ReportMetric(perChecker, "retained-B/checker")
}
