package live

import "sync"

// changes tells whoever watches a controller that the session's model or
// permission mode changed, so a page showing the session (another
// browser, the browser a terminal session is shared to) follows a switch
// made elsewhere at once. A watcher is told that something changed, not
// what: it reads the state it shows (Controller.State) when told, so a
// burst of changes costs one read.
type changes struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

// watch registers a watcher; stop unregisters it.
func (ch *changes) watch() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	ch.mu.Lock()
	if ch.subs == nil {
		ch.subs = map[chan struct{}]struct{}{}
	}
	ch.subs[c] = struct{}{}
	ch.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			ch.mu.Lock()
			delete(ch.subs, c)
			ch.mu.Unlock()
		})
	}
}

// tell signals every watcher; one that has a signal pending keeps it.
func (ch *changes) tell() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for c := range ch.subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// Changes signals after each change of the session's model or permission
// mode made through the controller (by any frontend); stop ends the
// watch. A mode the agent itself changes (ExitPlanMode) shows at the
// run's end, as the run's events say it.
func (c *Controller) Changes() (<-chan struct{}, func()) { return c.changed.watch() }

// State is the session's model and permission mode now.
func (c *Controller) State() SessionState { return stateOf(c.Runtime()) }
