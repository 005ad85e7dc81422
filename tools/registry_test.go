package tools

import (
	"reflect"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// specNames returns the names of specs, with * after a deferred one.
func specNames(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		n := s.Name
		if s.Deferred {
			n += "*"
		}
		out = append(out, n)
	}
	return out
}

// TestRegistryDeferred: a deferred tool keeps its place in Specs, marked,
// so the tool list a provider is sent does not move when tools are
// deferred; DeferredSpecs and DeferredNames list only the enabled deferred
// ones; unregistering forgets the mark.
func TestRegistryDeferred(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	for _, tl := range []Tool{&plTool{name: "A"}, &plTool{name: "B"}} {
		if err := r.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.RegisterDeferred(&plTool{name: "C"}); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterDeferred(&plTool{name: "C"}); err == nil {
		t.Error("a name registered twice, deferred or not, is refused")
	}
	if err := r.Register(&plTool{name: "D"}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("Specs", specNames(r.Specs()), []string{"A", "B", "C*", "D"})

	r.SetDeferred("A", true)
	r.SetDeferred("nope", true) // unknown: nothing happens
	check("Specs after SetDeferred", specNames(r.Specs()), []string{"A*", "B", "C*", "D"})
	check("DeferredSpecs", specNames(r.DeferredSpecs()), []string{"A*", "C*"})
	check("DeferredNames", r.DeferredNames(), []string{"A", "C"})
	check("Names", r.Names(), []string{"A", "B", "C", "D"})

	r.SetEnabled("C", false)
	check("DeferredNames with C disabled", r.DeferredNames(), []string{"A"})
	r.SetEnabled("C", true)

	r.SetDeferred("A", false)
	r.Unregister("C")
	if err := r.Register(&plTool{name: "C"}); err != nil {
		t.Fatal(err)
	}
	check("Specs after undeferring A and registering C again", specNames(r.Specs()), []string{"A", "B", "D", "C"})
	if r.DeferredNames() != nil {
		t.Errorf("nothing is deferred now: %v", r.DeferredNames())
	}
	// A deferred tool runs like any other.
	r.SetDeferred("B", true)
	env := NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	p := &Pipeline{Registry: r, Checker: &plChecker{}}
	if o := plRun(p, env, "B", `{}`); o.Result.IsError {
		t.Errorf("calling a deferred tool: %+v", o.Result)
	}
}
