package tools

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// hostsChecker is a real permission.Checker for the hosts, with the
// "always" rules it was given recorded.
type hostsChecker struct {
	*permission.Checker
	mu    sync.Mutex
	saved []string
}

func newHostsChecker(t *testing.T, allowed []string, deny ...string) *hostsChecker {
	t.Helper()
	hc := &hostsChecker{}
	c, err := permission.NewChecker(permission.Config{Workspace: t.TempDir(), Home: t.TempDir(), AllowedDomains: allowed, Rules: permission.Rules{Deny: deny},
		Persist: func(rule string) error {
			hc.mu.Lock()
			hc.saved = append(hc.saved, rule)
			hc.mu.Unlock()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	hc.Checker = c
	return hc
}

// hostAsker answers every permission ask with ans, after gate (when set)
// is closed, and counts and keeps the asks.
type hostAsker struct {
	ans     Approval
	gate    chan struct{}
	started chan struct{} // closed at the first ask, when set
	once    sync.Once
	n       atomic.Int32
	mu      sync.Mutex
	asked   []PermissionAsk
}

func (a *hostAsker) AskPermission(ctx context.Context, ask PermissionAsk) Approval {
	a.n.Add(1)
	a.mu.Lock()
	a.asked = append(a.asked, ask)
	a.mu.Unlock()
	if a.started != nil {
		a.once.Do(func() { close(a.started) })
	}
	if a.gate != nil {
		<-a.gate
	}
	return a.ans
}

func (a *hostAsker) AskQuestions(context.Context, []Question) ([]string, error) { return nil, nil }

func hostsFor(t *testing.T, c *hostsChecker, ask Asker) *callHosts {
	t.Helper()
	call := Call{ID: "call_1", Name: "Bash", Input: []byte(`{"command":"curl http://example.org"}`)}
	h := hostsOf(withHosts(context.Background(), c, ask, call))
	if h == nil {
		t.Fatal("withHosts gave no judge of hosts for a permission.Checker")
	}
	return h
}

func TestCallHostsAllowedGoThroughUnasked(t *testing.T) {
	t.Parallel()
	a := &hostAsker{}
	h := hostsFor(t, newHostsChecker(t, []string{"*.example.com"}), a)
	if err := h.decide("api.example.com", 443); err != nil {
		t.Fatalf("allowed domain refused: %v", err)
	}
	if a.n.Load() != 0 || h.refusedNote() != "" {
		t.Errorf("an allowed host was asked (%d) or noted (%q)", a.n.Load(), h.refusedNote())
	}
}

func TestCallHostsPrintModeRefusesNamingHostAndHowToAllow(t *testing.T) {
	t.Parallel()
	h := hostsFor(t, newHostsChecker(t, nil), nil) // print mode: no Asker
	err := h.decide("evil.example.org", 443)
	if err == nil {
		t.Fatal("a host nobody allowed went through with nobody to ask")
	}
	for _, want := range []string{"evil.example.org", "sandbox.network.allowedDomains", `--allowedTools "WebFetch(domain:evil.example.org)"`} {
		if !strings.Contains(err.Error(), want) || !strings.Contains(h.refusedNote(), want) {
			t.Errorf("refusal lacks %q:\n%v\nnote: %s", want, err, h.refusedNote())
		}
	}
}

func TestCallHostsDenyRuleRefusesUnasked(t *testing.T) {
	t.Parallel()
	a := &hostAsker{ans: Approval{Allow: true}}
	h := hostsFor(t, newHostsChecker(t, []string{"example.org"}, "WebFetch(domain:example.org)"), a)
	if err := h.decide("example.org", 80); err == nil || !strings.Contains(err.Error(), "denies") {
		t.Fatalf("deny rule did not refuse: %v", err)
	}
	if a.n.Load() != 0 {
		t.Errorf("a denied host was asked")
	}
}

func TestCallHostsAsksOnceForConcurrentRequests(t *testing.T) {
	t.Parallel()
	a := &hostAsker{ans: Approval{Allow: true}, gate: make(chan struct{}), started: make(chan struct{})}
	h := hostsFor(t, newHostsChecker(t, nil), a)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- h.decide("registry.example.net", 443) })
	}
	// The question is open while the other requests arrive; they wait for
	// its answer (or, arriving after it, find it).
	<-a.started
	close(a.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("request refused after yes: %v", err)
		}
	}
	if n := a.n.Load(); n != 1 {
		t.Errorf("asked %d times for one host, want 1", n)
	}
	ask := a.asked[0]
	if ask.Decision.Reason != "Network request outside the sandbox: registry.example.net" || ask.Tool != "Bash" || ask.CallID != "call_1" || ask.Host != "registry.example.net" {
		t.Errorf("question = %+v", ask)
	}
	if len(ask.Decision.Suggestions) != 1 || ask.Decision.Suggestions[0] != "WebFetch(domain:registry.example.net)" {
		t.Errorf("always would write %v", ask.Decision.Suggestions)
	}
	// Yes holds for the rest of this command, and only for it.
	if err := h.decide("registry.example.net", 443); err != nil || a.n.Load() != 1 {
		t.Errorf("second request of the same command: %v, asked %d", err, a.n.Load())
	}
}

func TestCallHostsNoIsRememberedForTheCommand(t *testing.T) {
	t.Parallel()
	a := &hostAsker{ans: Approval{}}
	h := hostsFor(t, newHostsChecker(t, nil), a)
	for range 2 {
		if err := h.decide("x.example.net", 443); err == nil || !strings.Contains(err.Error(), "the user said no") {
			t.Fatalf("no: %v", err)
		}
	}
	if a.n.Load() != 1 {
		t.Errorf("asked %d times, want 1", a.n.Load())
	}
}

func TestCallHostsAlwaysAddsTheRule(t *testing.T) {
	t.Parallel()
	c := newHostsChecker(t, nil)
	a := &hostAsker{ans: Approval{Allow: true, Rule: "WebFetch(domain:pkg.example.net)"}}
	if err := hostsFor(t, c, a).decide("pkg.example.net", 443); err != nil {
		t.Fatal(err)
	}
	if len(c.saved) != 1 || c.saved[0] != "WebFetch(domain:pkg.example.net)" {
		t.Errorf("persisted %v", c.saved)
	}
	// The next command is not asked.
	b := &hostAsker{}
	if err := hostsFor(t, c, b).decide("pkg.example.net", 443); err != nil || b.n.Load() != 0 {
		t.Errorf("after always: %v, asked %d", err, b.n.Load())
	}
}

func TestCallHostsAlwaysWithAnotherRuleSavesNothing(t *testing.T) {
	t.Parallel()
	c := newHostsChecker(t, nil)
	a := &hostAsker{ans: Approval{Allow: true, Rule: "Bash"}}
	if err := hostsFor(t, c, a).decide("pkg.example.net", 443); err != nil {
		t.Fatal(err)
	}
	if len(c.saved) != 0 {
		t.Errorf("an answer's rule that is not the question's suggestion was saved: %v", c.saved)
	}
}

func TestCallHostsBackgroundAsksNobody(t *testing.T) {
	t.Parallel()
	a := &hostAsker{ans: Approval{Allow: true}}
	h := hostsFor(t, newHostsChecker(t, nil), a).unasked()
	if err := h.decide("x.example.net", 443); err == nil {
		t.Fatal("a background command's host went through unasked")
	}
	if a.n.Load() != 0 {
		t.Error("a background command asked after its call returned")
	}
}
