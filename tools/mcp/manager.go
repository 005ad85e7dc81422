package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpapi "github.com/mark3labs/mcp-go/mcp"

	"github.com/nova-dev/nova/tools"
)

// State is where a server's connection stands.
type State string

// The states /mcp and nova mcp list show.
const (
	StateConnecting State = "connecting"
	StateConnected  State = "connected"
	StateFailed     State = "failed"
	// StateNeedsLogin is a remote server that wants an OAuth login nova
	// does not have (or that it refused); Status.Error says how to log in.
	StateNeedsLogin State = "needs login"
	StateClosed     State = "closed"
)

// Status is one server's state, for a person to read.
type Status struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	State  State  `json:"state"`
	// Tools are the names registered from the server (mcp__server__tool).
	Tools []string `json:"tools,omitempty"`
	// Error says why the server failed, in words.
	Error string `json:"error,omitempty"`
	// Retry is when a failed server may be started again.
	Retry time.Time `json:"retry,omitzero"`
}

// Options configure a Manager.
type Options struct {
	// Registry is where the servers' tools are registered.
	Registry *tools.Registry
	// StartTimeout bounds connecting and listing tools; CallTimeout a
	// tool call (a server's own CallTimeout wins). 0 means the defaults.
	StartTimeout, CallTimeout time.Duration
	// Version is nova's version, told to servers.
	Version string
	// OnChange, when set, is told whenever a server's state or tools
	// change (the TUI's /mcp, the server's status).
	OnChange func(Status)
	// AuthDir is where OAuth logins are stored, a file per server
	// (NOVA_HOME/mcp-auth); "" keeps them in memory for the Manager's life.
	AuthDir string
	// ToolSearch says when the servers' tools are deferred behind
	// ToolSearch (search.go); ContextWindow, in tokens, is what auto
	// mode measures them against.
	ToolSearch    SearchMode
	ContextWindow int
	// EnvPolicy is what of nova's environment a stdio server inherits,
	// under the configured env of its entry (which passes whole: it is
	// the user's words, or a trusted project's); the zero policy drops
	// secret-named variables.
	EnvPolicy tools.EnvPolicy
}

// Manager connects MCP servers in the background and keeps their tools in
// the registry: a slow server never delays the first prompt, its tools
// join when it is ready. A server that fails is reported and started
// again, with backoff, the next time one of its tools is called; one that
// wants an OAuth login waits for Login (oauth.go).
type Manager struct {
	opts   Options
	search *deferral
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[string]*conn
	order []string
}

// conn is one server's connection and what it registered.
type conn struct {
	m   *Manager
	srv Server

	mu       sync.Mutex
	state    State
	err      string
	client   *client.Client
	stop     context.CancelFunc // ends the transport (kills a stdio server)
	tools    map[string]*Tool   // by nova name
	failures int
	retry    time.Time
	ready    chan struct{} // closed when the current attempt ends
	progress sync.Map      // progress token -> func(mcpapi.ProgressNotificationParams)
	tail     *tailBuffer   // the end of a stdio server's stderr
	proc     *stdioProc    // a stdio server's process
	// listing is held while a refresh lists the tools and applies them, so
	// that an older list is never applied over a newer one.
	listing sync.Mutex
	auth    authState // OAuth: the stored login, what the server said (oauth.go)
}

// NewManager returns a manager for servers; nothing starts before Start.
func NewManager(servers []Server, o Options) *Manager {
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: o, search: newDeferral(o), ctx: ctx, cancel: cancel, conns: map[string]*conn{}}
	for _, s := range servers {
		if _, dup := m.conns[s.Name]; dup {
			continue
		}
		m.conns[s.Name] = &conn{m: m, srv: s, state: StateConnecting, tools: map[string]*Tool{}}
		m.order = append(m.order, s.Name)
	}
	sort.Strings(m.order)
	return m
}

// Start connects every server in the background, and offers the model
// the resource tools (ListMcpResourcesTool, ReadMcpResourceTool) when
// there is any server.
func (m *Manager) Start() {
	if len(m.all()) > 0 {
		_ = m.opts.Registry.Register(&ListResources{m: m})
		_ = m.opts.Registry.Register(&ReadResource{m: m})
		m.search.offer()
	}
	for _, c := range m.all() {
		c.mu.Lock()
		ready := c.begin()
		c.mu.Unlock()
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			c.connect(ready)
		}()
	}
}

// Add connects one more server in the background (a project server the
// person approved after start). A name already known is left alone.
func (m *Manager) Add(s Server) {
	m.mu.Lock()
	if _, dup := m.conns[s.Name]; dup || m.ctx.Err() != nil {
		m.mu.Unlock()
		return
	}
	c := &conn{m: m, srv: s, tools: map[string]*Tool{}}
	c.mu.Lock()
	ready := c.begin()
	c.mu.Unlock()
	first := len(m.order) == 0
	m.conns[s.Name] = c
	m.order = append(m.order, s.Name)
	sort.Strings(m.order)
	m.mu.Unlock()
	if first {
		_ = m.opts.Registry.Register(&ListResources{m: m})
		_ = m.opts.Registry.Register(&ReadResource{m: m})
		m.search.offer()
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		c.connect(ready)
	}()
	c.changed()
}

// Wait blocks until every server's first connection attempt has ended or
// ctx is done (tests, and nova mcp list, which reports the outcome).
func (m *Manager) Wait(ctx context.Context) {
	for _, c := range m.all() {
		c.mu.Lock()
		ready := c.ready
		c.mu.Unlock()
		if ready == nil {
			continue
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
	}
}

// Statuses returns every server's state, by name.
func (m *Manager) Statuses() []Status {
	var out []Status
	for _, c := range m.all() {
		out = append(out, c.status())
	}
	return out
}

// Close disconnects every server (a stdio server is stopped, with what it
// started) and removes their tools from the registry.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.cancel()
	m.mu.Unlock()
	for _, c := range m.all() {
		c.close()
	}
	m.wg.Wait()
	return nil
}

// all returns the servers' connections, by name.
func (m *Manager) all() []*conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*conn, 0, len(m.order))
	for _, name := range m.order {
		out = append(out, m.conns[name])
	}
	return out
}

// lookup returns the connection of the server called name, or nil.
func (m *Manager) lookup(name string) *conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conns[name]
}

// names lists the servers, for messages.
func (m *Manager) names() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.order, ", ")
}

// begin starts an attempt; c.mu is held.
func (c *conn) begin() chan struct{} {
	c.state, c.err = StateConnecting, ""
	c.ready = make(chan struct{})
	return c.ready
}

// connect makes one attempt to connect and list the server's tools.
func (c *conn) connect(ready chan struct{}) {
	defer close(ready)
	ctx, stop := context.WithCancel(c.m.ctx)
	cl, err := c.dialAndList(ctx)
	c.mu.Lock()
	if err != nil {
		stop()
		if cl != nil {
			_ = cl.Close()
		}
		c.settleLocked(err)
		c.mu.Unlock()
		c.changed()
		return
	}
	if c.m.ctx.Err() != nil {
		c.mu.Unlock()
		stop()
		_ = cl.Close()
		return
	}
	c.client, c.stop = cl, stop
	c.state, c.err, c.failures = StateConnected, "", 0
	c.mu.Unlock()
	c.changed()
}

// dialAndList connects, performs the handshake and registers the tools.
func (c *conn) dialAndList(ctx context.Context) (*client.Client, error) {
	sctx, cancel := context.WithTimeout(ctx, c.m.opts.StartTimeout)
	defer cancel()
	c.tail, c.proc = &tailBuffer{}, &stdioProc{}
	cl, err := dial(ctx, c.srv, c.m.opts.EnvPolicy, c.tail, c.proc, c.oauthConfig())
	if err != nil {
		if ln := c.loginNeeded(err); ln != nil {
			return nil, ln
		}
		return nil, err
	}
	// Bound to cl, not to c.client: a server may change its tools while
	// nova is still connecting (c.client is set only once it is done).
	cl.OnNotification(func(n mcpapi.JSONRPCNotification) { c.notified(cl, n) })
	if c.srv.Transport == TransportSSE {
		// A lost SSE stream does not fail the calls waiting on it (they
		// would wait out their timeout): the server is marked failed now.
		cl.OnConnectionLost(func(err error) {
			c.lost(cl, fmt.Errorf("the event stream broke: %v", err))
		})
	}
	if _, err := initialize(sctx, cl, c.m.opts.Version); err != nil {
		if ln := c.loginNeeded(err); ln != nil {
			return cl, ln
		}
		return cl, c.explain("the handshake failed", sctx, err)
	}
	// Some servers answer initialize to anyone and want the login from
	// tools/list on: that 401 too is a login to ask for, not a failure.
	if err := c.refresh(sctx, cl); err != nil {
		if ln := c.loginNeeded(err); ln != nil {
			return cl, ln
		}
		return cl, c.explain("listing its tools failed", sctx, err)
	}
	return cl, nil
}

// explain words a start-up failure: a timeout says how long was waited,
// a dead stdio server what it last wrote to stderr.
func (c *conn) explain(what string, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s (set MCP_TIMEOUT, in milliseconds, to wait longer)", c.m.opts.StartTimeout)
	}
	msg := fmt.Sprintf("%s: %v", what, err)
	if tail := c.tail.Lines(); tail != "" {
		msg += "; it wrote: " + tail
	}
	return errors.New(msg)
}

// failLocked marks the server failed and schedules when it may be tried
// again: 1 s, 2 s, 4 s ... up to a minute. c.mu is held.
func (c *conn) failLocked(err error) {
	c.state, c.err = StateFailed, err.Error()
	c.failures++
	backoff := time.Second << min(c.failures-1, 6)
	c.retry = time.Now().Add(min(backoff, time.Minute))
}

// refresh lists the server's tools and makes the registry match.
func (c *conn) refresh(ctx context.Context, cl *client.Client) error {
	c.listing.Lock()
	defer c.listing.Unlock()
	res, err := cl.ListTools(ctx, mcpapi.ListToolsRequest{})
	if err != nil {
		return err
	}
	reg := c.m.opts.Registry
	seen := map[string]bool{}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == StateClosed {
		return fmt.Errorf("MCP server %s is closed", c.srv.Name)
	}
	for _, t := range res.Tools {
		tool, err := newTool(c, t)
		if err != nil {
			continue // a tool whose schema cannot be read is not offered
		}
		name := tool.Name()
		if seen[name] {
			continue
		}
		seen[name] = true
		if old, ok := c.tools[name]; ok {
			if old.sameAs(tool) {
				continue
			}
			reg.Unregister(name)
		}
		if err := c.m.search.register(tool); err != nil {
			continue // the name is taken (by a built-in tool)
		}
		c.tools[name] = tool
	}
	for name := range c.tools {
		if !seen[name] {
			reg.Unregister(name)
			delete(c.tools, name)
		}
	}
	c.m.search.settle()
	return nil
}

// notified handles what the server sends unasked on cl.
func (c *conn) notified(cl *client.Client, n mcpapi.JSONRPCNotification) {
	switch n.Method {
	case mcpapi.MethodNotificationToolsListChanged:
		c.mu.Lock()
		current := c.client == cl || (c.state == StateConnecting && c.client == nil)
		c.mu.Unlock()
		if !current || c.m.ctx.Err() != nil {
			return // a connection nova has let go of
		}
		c.m.wg.Add(1)
		go func() {
			defer c.m.wg.Done()
			ctx, cancel := context.WithTimeout(c.m.ctx, c.m.opts.StartTimeout)
			defer cancel()
			switch err := c.refresh(ctx, cl); {
			case err == nil:
				c.changed()
			case c.wantsLogin(err):
				_ = c.loginLost(cl, err)
			}
		}()
	case string(mcpapi.MethodNotificationProgress):
		token := n.Params.AdditionalFields["progressToken"]
		if f, ok := c.progress.Load(fmt.Sprint(token)); ok {
			p := mcpapi.ProgressNotificationParams{}
			if v, ok := n.Params.AdditionalFields["progress"].(float64); ok {
				p.Progress = v
			}
			if v, ok := n.Params.AdditionalFields["total"].(float64); ok {
				p.Total = v
			}
			if v, ok := n.Params.AdditionalFields["message"].(string); ok {
				p.Message = v
			}
			f.(func(mcpapi.ProgressNotificationParams))(p)
		}
	}
}

// use returns a connected client, starting the server again when it
// failed and its backoff has passed. It waits for an attempt under way.
// A stdio server whose process died since the last call is started again
// at once, past any backoff, as Claude Code reconnects: the call never
// reached it, so nothing is retried. That happens once a call; a server
// that does not come back is reported with what it wrote to stderr.
func (c *conn) use(ctx context.Context) (*client.Client, error) {
	restarted := false // this call is starting a server that died since the last
	for {
		c.mu.Lock()
		switch c.state {
		case StateConnected:
			cl, proc := c.client, c.proc
			c.mu.Unlock()
			if !proc.exited() {
				return cl, nil
			}
			if restarted {
				c.lost(cl, errors.New("it exited right after nova started it again"))
				return nil, c.diedErr("stopped again right after nova started it again")
			}
			c.lost(cl, errors.New("it exited since the last call"))
			c.mu.Lock()
			if c.state == StateFailed {
				// The backoff is for a server that fails to start, not
				// for one that ran and died.
				c.retry = time.Time{}
				restarted = true
				ready := c.begin()
				c.mu.Unlock()
				c.start(ready)
			} else {
				c.mu.Unlock() // another call got there first
			}
			continue
		case StateClosed:
			c.mu.Unlock()
			return nil, fmt.Errorf("MCP server %s is closed", c.srv.Name)
		case StateConnecting:
			ready := c.ready
			c.mu.Unlock()
			select {
			case <-ready:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("MCP server %s is still starting", c.srv.Name)
			}
		case StateNeedsLogin:
			// Tried again only once the stored login changed (nova mcp
			// login in another terminal): until then it would be refused.
			if !c.loginChangedLocked() {
				err := c.needsLoginErr(c.err)
				c.mu.Unlock()
				return nil, err
			}
		}
		// Failed.
		if restarted {
			err := fmt.Errorf("MCP server %s stopped since its last call and did not start again: %s", c.srv.Name, c.err)
			c.mu.Unlock()
			return nil, err
		}
		if wait := time.Until(c.retry); wait > 0 {
			err := fmt.Errorf("MCP server %s failed (%s); nova starts it again in %s, at the next call after that", c.srv.Name, c.err, wait.Round(time.Second))
			c.mu.Unlock()
			return nil, err
		}
		ready := c.begin()
		c.mu.Unlock()
		c.start(ready)
	}
}

// start makes a connection attempt in the background; ready is the
// attempt's, from begin.
func (c *conn) start(ready chan struct{}) {
	c.changed()
	c.m.wg.Add(1)
	go func() {
		defer c.m.wg.Done()
		c.connect(ready)
	}()
}

// diedErr is the error of a call whose server died: its name, and why
// (with what it last wrote to stderr, which lost recorded).
func (c *conn) diedErr(what string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Errorf("MCP server %s %s: %s", c.srv.Name, what, c.err)
}

// connected returns the client when the server is connected, else nil:
// for listings that should not wait for, or restart, a server.
func (c *conn) connected() *client.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != StateConnected {
		return nil
	}
	return c.client
}

// lost marks a connected server failed after a call found it dead; the
// next call starts it again (after the backoff).
func (c *conn) lost(cl *client.Client, err error) {
	c.mu.Lock()
	if c.client != cl || c.state != StateConnected {
		c.mu.Unlock()
		return
	}
	c.client = nil
	stop, tail := c.stop, c.tail
	c.failLocked(err)
	failed := c.err
	c.mu.Unlock()
	// Stopped first: that kills what a stdio server started, which may
	// hold its stderr open; Close then waits for the rest of its stderr.
	if stop != nil {
		stop()
	}
	_ = cl.Close()
	if t := tail.Lines(); t != "" {
		c.mu.Lock()
		if c.state == StateFailed && c.err == failed {
			c.err += "; it wrote: " + t
		}
		c.mu.Unlock()
	}
	c.changed()
}

func (c *conn) close() {
	c.mu.Lock()
	cl, stop := c.client, c.stop
	c.client, c.state = nil, StateClosed
	for name := range c.tools {
		c.m.opts.Registry.Unregister(name)
	}
	c.tools = map[string]*Tool{}
	c.mu.Unlock()
	if cl != nil {
		_ = cl.Close()
	}
	if stop != nil {
		stop()
	}
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Name: c.srv.Name, Target: c.srv.Target(), State: c.state, Error: c.err}
	if c.state == StateFailed {
		st.Retry = c.retry
	}
	for name := range c.tools {
		st.Tools = append(st.Tools, name)
	}
	sort.Strings(st.Tools)
	return st
}

func (c *conn) changed() {
	if f := c.m.opts.OnChange; f != nil {
		f(c.status())
	}
}

// callTimeout is how long one call to this server may take.
func (c *conn) callTimeout() time.Duration {
	if c.srv.CallTimeout > 0 {
		return c.srv.CallTimeout
	}
	return c.m.opts.CallTimeout
}

// ToolName is the name nova gives a server's tool: mcp__<server>__<tool>,
// with characters the model APIs refuse replaced by _ and cut to 64.
func ToolName(server, tool string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
				return r
			}
			return '_'
		}, s)
	}
	name := "mcp__" + clean(server) + "__" + clean(tool)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// Reconnect drops the connection of the server called name, if any, and
// connects it again at once, past any backoff (a person asked: /mcp's r),
// waiting for the outcome; a server that failed gets its tools back, one
// whose stored login changed uses it. The error says why it is not
// connected.
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	c := m.lookup(name)
	if c == nil {
		return fmt.Errorf("no MCP server %q (servers: %s)", name, m.names())
	}
	return c.reconnect(ctx)
}
