package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	mcpapi "github.com/mark3labs/mcp-go/mcp"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
)

// convert turns a server's result into what the model gets: text as
// text, images as images it sees, resources as text it can follow (with
// ReadMcpResourceTool), and structuredContent in place of the text when
// the tool declares an outputSchema. Large output is spilled by the
// pipeline like any other tool's.
func convert(server string, res *mcpapi.CallToolResult, structured bool) tools.Result {
	var out tools.Result
	var text []string
	structuredJSON := ""
	if structured && (res.StructuredContent != nil || len(res.RawStructuredContent) > 0) {
		raw := res.RawStructuredContent
		if len(raw) == 0 {
			raw, _ = json.Marshal(res.StructuredContent)
		}
		structuredJSON = string(raw)
	}
	for _, c := range res.Content {
		switch v := deref(c).(type) {
		case mcpapi.TextContent:
			if structuredJSON == "" {
				text = append(text, v.Text)
			}
		case mcpapi.ImageContent:
			data, err := base64.StdEncoding.DecodeString(v.Data)
			if err != nil || !imageType(v.MIMEType) {
				text = append(text, fmt.Sprintf("[an image (%s) the model cannot be shown]", v.MIMEType))
				continue
			}
			out.Images = append(out.Images, llm.Part{Type: llm.PartImage, MediaType: v.MIMEType, Data: data})
		case mcpapi.AudioContent:
			text = append(text, fmt.Sprintf("[audio (%s), which nova does not pass to the model]", v.MIMEType))
		case mcpapi.ResourceLink:
			line := fmt.Sprintf("Resource link: %s (%s", v.URI, v.Name)
			if v.MIMEType != "" {
				line += ", " + v.MIMEType
			}
			line += ")"
			if v.Description != "" {
				line += " — " + v.Description
			}
			text = append(text, line+fmt.Sprintf(". Read it with ReadMcpResourceTool {\"server\": %q, \"uri\": %q}.", server, v.URI))
		case mcpapi.EmbeddedResource:
			text = append(text, embedded(v.Resource))
		default:
			raw, _ := json.Marshal(c)
			text = append(text, string(raw))
		}
	}
	if structuredJSON != "" {
		text = append([]string{structuredJSON}, text...)
	}
	out.Output = strings.Join(text, "\n")
	if out.Output == "" && len(out.Images) == 0 {
		out.Output = "(the tool returned nothing)"
	}
	out.IsError = res.IsError
	return out
}

// embedded is a resource the server sent inside a result.
func embedded(r mcpapi.ResourceContents) string {
	switch v := deref(r).(type) {
	case mcpapi.TextResourceContents:
		return fmt.Sprintf("Resource %s:\n%s", v.URI, v.Text)
	case mcpapi.BlobResourceContents:
		return fmt.Sprintf("Resource %s (%s, %d bytes of binary data, not shown)", v.URI, v.MIMEType, base64.StdEncoding.DecodedLen(len(v.Blob)))
	}
	return "[a resource nova cannot read]"
}

// deref turns the pointer forms mcp-go may hand out into values, so one
// switch reads both.
func deref(v any) any {
	switch p := v.(type) {
	case *mcpapi.TextContent:
		return *p
	case *mcpapi.ImageContent:
		return *p
	case *mcpapi.AudioContent:
		return *p
	case *mcpapi.ResourceLink:
		return *p
	case *mcpapi.EmbeddedResource:
		return *p
	case *mcpapi.TextResourceContents:
		return *p
	case *mcpapi.BlobResourceContents:
		return *p
	}
	return v
}

// imageType reports whether the model APIs take images of this type.
func imageType(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}
