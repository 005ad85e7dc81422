package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// ListResources is Claude Code's ListMcpResourcesTool: the resources the
// connected servers offer.
type ListResources struct {
	tools.Input[listResourcesInput]
	m *Manager
}

type listResourcesInput struct {
	Server string `json:"server,omitempty" jsonschema:"Only list the resources of this server"`
}

// ReadResource is Claude Code's ReadMcpResourceTool: one resource of a
// server, by URI (what a resource link in a tool result points to).
type ReadResource struct {
	tools.Input[readResourceInput]
	m *Manager
}

type readResourceInput struct {
	Server string `json:"server" jsonschema:"The MCP server name"`
	URI    string `json:"uri" jsonschema:"The resource URI to read"`
}

// Name implements tools.Tool.
func (*ListResources) Name() string { return "ListMcpResourcesTool" }

// Name implements tools.Tool.
func (*ReadResource) Name() string { return "ReadMcpResourceTool" }

// Kind is fetch: a server's code answers, so a call asks unless a rule
// allows it, as for its tools.
func (*ListResources) Kind() permission.Kind { return permission.KindFetch }

// Kind is fetch, as for ListResources.
func (*ReadResource) Kind() permission.Kind { return permission.KindFetch }

// Description implements tools.Tool.
func (*ListResources) Description() string {
	return "Lists the resources (files, documents, records) the connected MCP servers offer, with each one's server and URI. Read one with ReadMcpResourceTool."
}

// Description implements tools.Tool.
func (*ReadResource) Description() string {
	return "Reads a resource of an MCP server by its URI: one listed by ListMcpResourcesTool, or a resource link a tool returned."
}

// Run implements tools.Tool.
func (t *ListResources) Run(ctx context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in listResourcesInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input: %v", err), nil
	}
	if in.Server != "" && t.m.lookup(in.Server) == nil {
		return tools.Errorf("no MCP server named %q; servers: %s", in.Server, t.m.names()), nil
	}
	rs, errs := t.m.resources(ctx, in.Server, true)
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s: %v\n", e.Server, e.Err)
	}
	for _, r := range rs {
		fmt.Fprintf(&b, "%s %s (%s", r.Server, r.URI, r.Name)
		if r.MIMEType != "" {
			fmt.Fprintf(&b, ", %s", r.MIMEType)
		}
		b.WriteString(")")
		if r.Description != "" {
			b.WriteString(" — " + r.Description)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return tools.Result{Output: "No resources."}, nil
	}
	return tools.Result{Output: strings.TrimRight(b.String(), "\n")}, nil
}

// Run implements tools.Tool.
func (t *ReadResource) Run(ctx context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in readResourceInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input: %v", err), nil
	}
	if t.m.lookup(in.Server) == nil {
		return tools.Errorf("no MCP server named %q; servers: %s", in.Server, t.m.names()), nil
	}
	text, err := t.m.ReadResource(ctx, in.Server, in.URI)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if text == "" {
		return tools.Result{Output: "(the resource is empty)"}, nil
	}
	return tools.Result{Output: text}, nil
}
