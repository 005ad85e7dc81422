package tools

import (
	"context"
	"sync"

	"github.com/nova-dev/nova/llm"
)

// RunScope is what lasts as long as one run of the agent: one prompt and
// every turn it takes. A tool that changes the session for the rest of the
// run (a skill's allowed-tools, its model) registers the undoing with
// AtEnd, and the agent ends the scope when the run ends, however it ends.
// The agent starts one per run (WithRunScope); RunScopeOf finds it.
type RunScope struct {
	// parent is the scope of the run this one runs inside (a subagent's
	// parent's): what it added (a skill's hooks) holds here too.
	parent  *RunScope
	mu      sync.Mutex
	ends    []func()
	model   *RunModel
	denials []Outcome
	ended   bool
}

// RunModel is a model the rest of a run uses in place of the session's
// (a skill's "model" field).
type RunModel struct {
	// ID is "provider:model", for people.
	ID string
	// Client reaches the model's provider; Model is its name there.
	Client llm.Client
	Model  string
	// MaxTokens bounds one response; 0 keeps the session's bound.
	MaxTokens int
}

type runScopeKey struct{}

// WithRunScope starts a run's scope: ctx carries it to everything the run
// does. The caller ends it when the run ends.
func WithRunScope(ctx context.Context) (context.Context, *RunScope) {
	s := &RunScope{parent: RunScopeOf(ctx)}
	return context.WithValue(ctx, runScopeKey{}, s), s
}

// Parent returns the scope of the run this one runs inside (a
// subagent's parent's), or nil.
func (s *RunScope) Parent() *RunScope { return s.parent }

// RunScopeOf returns the scope of the run ctx belongs to, or nil outside
// any run (a frontend's own call, a test).
func RunScopeOf(ctx context.Context) *RunScope {
	s, _ := ctx.Value(runScopeKey{}).(*RunScope)
	return s
}

// AtEnd registers f to run when the run ends. It reports false, and does
// not keep f, when there is no run or it has ended: the caller must not
// make a change that would outlive the run.
func (s *RunScope) AtEnd(f func()) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.ends = append(s.ends, f)
	return true
}

// SetModel makes m the model of the run's later turns.
func (s *RunScope) SetModel(m RunModel) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.model = &m
}

// Model returns the model the run switched to, or nil for the session's.
func (s *RunScope) Model() *RunModel {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Denied records a call of the run that was refused and that the model
// did not make itself (a command's shell line), so the run's list of
// denials holds it too.
func (s *RunScope) Denied(o Outcome) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denials = append(s.denials, o)
}

// Denials returns the calls Denied recorded, in order.
func (s *RunScope) Denials() []Outcome {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Outcome(nil), s.denials...)
}

// End runs what was registered, last first, once.
func (s *RunScope) End() {
	s.mu.Lock()
	ends := s.ends
	s.ends, s.ended, s.model = nil, true, nil
	s.mu.Unlock()
	for i := len(ends) - 1; i >= 0; i-- {
		ends[i]()
	}
}
