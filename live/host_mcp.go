package live

import (
	"errors"
	"fmt"

	"github.com/nova-dev/nova/config"
)

// ErrNoPendingMCP is returned for an MCP server that is not waiting for
// approval in the session: unknown, answered already, or not a project's.
var ErrNoPendingMCP = errors.New("no such project MCP server waiting for approval in this session")

// PendingMCP lists the project MCP servers (a trusted workspace's
// .mcp.json) that session id does not start until a person approves
// them, as the terminal UI asks at start. It opens the session.
func (h *Host) PendingMCP(id string) ([]config.ConfiguredMCP, error) {
	rt, err := h.runtime(id)
	if err != nil {
		return nil, err
	}
	h.mcpMu.Lock()
	defer h.mcpMu.Unlock()
	return append([]config.ConfiguredMCP(nil), rt.MCPPending...), nil
}

// ApproveMCP answers for the pending project server name of session id,
// as the terminal UI's dialog does: the answer is remembered for the
// workspace (.nova/settings.local.json), and approved, the server starts
// in the session and in every other open session of the workspace that
// waits for it; rejected, it stays off there too.
func (h *Host) ApproveMCP(id, name string, approved bool) error {
	rt, err := h.runtime(id)
	if err != nil {
		return err
	}
	h.mcpMu.Lock()
	defer h.mcpMu.Unlock()
	s, ok := pendingMCP(rt, name)
	if !ok {
		return fmt.Errorf("%q in session %s: %w", name, id, ErrNoPendingMCP)
	}
	if err := rt.ApproveMCP(s, approved); err != nil {
		return err
	}
	h.mu.Lock()
	var same []*Runtime
	for _, o := range h.open {
		if o != rt && o.Workdir == rt.Workdir {
			same = append(same, o)
		}
	}
	h.mu.Unlock()
	for _, o := range same {
		if p, ok := pendingMCP(o, name); ok {
			if err := o.ApproveMCP(p, approved); err != nil {
				return fmt.Errorf("remembered, but session %s: %w", o.Session.ID(), err)
			}
		}
	}
	return nil
}

func pendingMCP(rt *Runtime, name string) (config.ConfiguredMCP, bool) {
	for _, p := range rt.MCPPending {
		if p.Name == name {
			return p, true
		}
	}
	return config.ConfiguredMCP{}, false
}
