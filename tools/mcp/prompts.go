package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	mcpapi "github.com/mark3labs/mcp-go/mcp"
)

// Prompt is a prompt a server offers, which a frontend turns into a slash
// command: /mcp__<server>__<prompt> args.
type Prompt struct {
	Server, Name string
	// Command is the slash command's name without the slash.
	Command     string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a Prompt, in the order given.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// Resource is a resource a server offers, which a frontend lets the
// person mention as @<server>:<uri>.
type Resource struct {
	Server, URI, Name, Description, MIMEType string
}

// Prompts lists the prompts of the connected servers; a server that
// offers none, or fails to list them, adds nothing.
func (m *Manager) Prompts(ctx context.Context) []Prompt {
	var out []Prompt
	for _, c := range m.all() {
		cl := c.connected()
		if cl == nil || cl.GetServerCapabilities().Prompts == nil {
			continue
		}
		res, err := cl.ListPrompts(ctx, mcpapi.ListPromptsRequest{})
		if err != nil {
			continue
		}
		for _, p := range res.Prompts {
			pr := Prompt{Server: c.srv.Name, Name: p.Name, Command: ToolName(c.srv.Name, p.Name), Description: p.Description}
			for _, a := range p.Arguments {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, pr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Command < out[j].Command })
	return out
}

// GetPrompt renders a prompt with its arguments (matched to the prompt's
// arguments in order; the last takes what is left) into the text of a
// user message.
func (m *Manager) GetPrompt(ctx context.Context, p Prompt, args []string) (string, error) {
	c := m.lookup(p.Server)
	if c == nil {
		return "", fmt.Errorf("no MCP server named %q", p.Server)
	}
	cl, err := c.use(ctx)
	if err != nil {
		return "", err
	}
	req := mcpapi.GetPromptRequest{}
	req.Params.Name = p.Name
	req.Params.Arguments = map[string]string{}
	for i, a := range p.Arguments {
		switch {
		case i < len(args) && i == len(p.Arguments)-1:
			req.Params.Arguments[a.Name] = strings.Join(args[i:], " ")
		case i < len(args):
			req.Params.Arguments[a.Name] = args[i]
		case a.Required:
			return "", fmt.Errorf("/%s needs %s (%s)", p.Command, a.Name, a.Description)
		}
	}
	pctx, cancel := context.WithTimeout(ctx, c.callTimeout())
	defer cancel()
	res, err := cl.GetPrompt(pctx, req)
	if err != nil {
		return "", fmt.Errorf("MCP server %s: prompt %s: %w", p.Server, p.Name, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		switch v := deref(msg.Content).(type) {
		case mcpapi.TextContent:
			parts = append(parts, v.Text)
		case mcpapi.EmbeddedResource:
			parts = append(parts, embedded(v.Resource))
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

// Resources lists the resources of the connected servers, for completing
// an @-mention: a server that is not connected is neither waited for nor
// started.
func (m *Manager) Resources(ctx context.Context) []Resource {
	rs, _ := m.resources(ctx, "", false)
	return rs
}

// serverError is why one server's part of a listing is missing.
type serverError struct {
	Server string
	Err    error
}

// resources lists the resources of every server, or of the one called
// only, with why each server that could not answer did not. With start,
// a server still starting is waited for and a failed one started again
// (the model asked: as for a tool call); without, only connected servers
// are asked. Each server's listing is bounded by its call timeout.
func (m *Manager) resources(ctx context.Context, only string, start bool) ([]Resource, []serverError) {
	var out []Resource
	var errs []serverError
	for _, c := range m.all() {
		name := c.srv.Name
		if only != "" && name != only {
			continue
		}
		cl := c.connected()
		if start {
			var err error
			if cl, err = c.use(ctx); err != nil {
				errs = append(errs, serverError{name, err})
				continue
			}
		}
		if cl == nil || cl.GetServerCapabilities().Resources == nil {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, c.callTimeout())
		res, err := cl.ListResources(lctx, mcpapi.ListResourcesRequest{})
		cancel()
		if err != nil {
			if c.wantsLogin(err) {
				err = c.loginLost(cl, err)
			} else {
				err = fmt.Errorf("listing its resources failed: %w", err)
			}
			errs = append(errs, serverError{name, err})
			continue
		}
		for _, r := range res.Resources {
			out = append(out, Resource{Server: name, URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
		}
	}
	return out, errs
}

// ReadResource returns the text of a server's resource (binary contents
// are described, not included).
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (string, error) {
	c := m.lookup(server)
	if c == nil {
		return "", fmt.Errorf("no MCP server named %q", server)
	}
	cl, err := c.use(ctx)
	if err != nil {
		return "", err
	}
	rctx, cancel := context.WithTimeout(ctx, c.callTimeout())
	defer cancel()
	req := mcpapi.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := cl.ReadResource(rctx, req)
	if err != nil {
		return "", fmt.Errorf("reading %s from %s: %w", uri, server, err)
	}
	parts := make([]string, 0, len(res.Contents))
	for _, r := range res.Contents {
		parts = append(parts, embedded(r))
	}
	return strings.Join(parts, "\n\n"), nil
}
