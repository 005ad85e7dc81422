// Package mcptest runs real MCP servers, built with mcp-go's server
// package, for the tests of nova's MCP client. The world around them may be
// fake (an authorization server that approves at once, a tool that "crashes"),
// but everything on the wire is mcp-go's own protocol implementation: no
// JSON-RPC here is written by hand.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options shape a test server.
type Options struct {
	Name          string        // server name reported in initialize ("nova-test" when empty)
	StartDelay    time.Duration // sleep before serving (a slow server)
	CancelledFile string        // when set, the hang tool writes this file when its context is cancelled (the client sent notifications/cancelled or went away)
	// OpenHandshake, for OAuth and OAuthSSE only, serves initialize and
	// notifications/initialized without a token (and the SSE event
	// stream, which carries their answers): a server that says who it is
	// and only asks for a login from tools/list on, as some hosted ones do.
	OpenHandshake bool
	// AddToolAfterList adds the tool "added" (as add_tool does, which
	// sends notifications/tools/list_changed) once the first tools/list
	// has been answered: a server whose tools change right after the
	// handshake, while its client is still connecting. The answer to that
	// first tools/list does not name "added".
	AddToolAfterList bool
	// PidFile, for the stdio server only, is a file each start appends
	// its process ID to, a line each: a test kills the server between
	// calls as a crash would, and sees whether it was started again.
	PidFile string
}

// DefaultName is the server name reported when Options.Name is empty.
const DefaultName = "nova-test"

// Version is the server version reported in initialize.
const Version = "1.0.0"

// TinyPNG is the base64 data of the image tool's 1x1 PNG, so a test can
// compare what reached it with what was sent.
const TinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR42mLSqv8PCAAA//8ChwGrX79XqwAAAABJRU5ErkJggg=="

// The fixed values the tools, the prompt and the resource answer with,
// exported so tests assert on what the server sends rather than on copies.
const (
	// ImageText is the caption the image tool sends after the image.
	ImageText = "an image"
	// ReadmeURI is the URI of the links tool's resource_link.
	ReadmeURI = "test://doc/readme"
	// EmbeddedURI is the URI of the links tool's embedded resource.
	EmbeddedURI = "test://doc/embedded"
	// EmbeddedText is the text of the links tool's embedded resource.
	EmbeddedText = "embedded text"
	// FailText is the text of the fail tool's error result.
	FailText = "the tool failed on purpose"
	// AddedTool is the name of the tool add_tool adds, and add_tool's answer.
	AddedTool = "added"
	// AddedText is what the added tool answers.
	AddedText = "added ran"
	// GreetingURI is the URI of the one resource.
	GreetingURI = "test://greeting"
	// GreetingText is the text of the one resource.
	GreetingText = "hello from the test server"
	// WeatherCelsius is the temperature the weather tool reports for every city.
	WeatherCelsius = 21.5
	// CrashExitCode is the status the stdio server exits with in the crash tool.
	CrashExitCode = 3
)

// progressInterval is the pause after each progress notification.
const progressInterval = 20 * time.Millisecond

// ToolNames lists the tools New registers, in the order they are documented.
var ToolNames = []string{"echo", "image", "links", "weather", "progress", "fail", "add_tool", "crash", "hang", "annotated", "environ"}

// crashKey carries, in a tool call's context, how the transport serving the
// call dies: the stdio server exits, the HTTP servers drop the connection.
type crashKey struct{}

func withCrash(ctx context.Context, crash func()) context.Context {
	return context.WithValue(ctx, crashKey{}, crash)
}

// New returns the server with these tools:
//
//	echo {text string}     -> text content = text
//	image {}               -> image content (TinyPNG, image/png), then text ImageText
//	links {}               -> resource_link ReadmeURI (text/plain), then an embedded text resource EmbeddedURI = EmbeddedText
//	weather {city string}  -> outputSchema {temperature number, city string}; structuredContent {"city": city, "temperature": 21.5} and the same JSON as text
//	progress {steps int}   -> with a progressToken, steps notifications/progress (progress i, total steps, message "step i") 20ms apart; then "done after N steps"
//	fail {}                -> isError result, text FailText
//	add_tool {}            -> adds tool "added" (answers AddedText), which broadcasts notifications/tools/list_changed; answers "added"
//	crash {}               -> stdio (MainIfRequested): exit status 3 mid-call; HTTP: the connection carrying the response is closed; elsewhere an error result
//	hang {}                -> blocks until the call's context is done or its session ends, then writes Options.CancelledFile
//	annotated {}           -> annotations title "Annotated", readOnlyHint true, destructiveHint false; answers "ok"
//	environ {}             -> the serving process's environment, NAME=value a line, sorted (what a stdio server was started with)
//
// Only "annotated" carries annotations: mcp.NewTool's defaults
// (destructiveHint true and so on) are cleared from the others. There is one
// prompt, "review" (argument "file", required) returning the user message
// "Review <file>", and one resource, GreetingURI (text/plain, GreetingText).
func New(o Options) *server.MCPServer {
	return build(o, nil)
}

// state is what the tool handlers of one server share: which sessions have
// ended, so a call whose context the transport never cancels (HTTP+SSE runs
// every request on a detached context) still learns its client went away.
type state struct {
	o    Options
	stop <-chan struct{} // closed when an HTTP test server shuts down; nil for New

	mu    sync.Mutex
	gone  map[string]chan struct{} // session ID -> closed when the session ends
	ended map[string]bool          // sessions that ended before anyone waited on them
}

// build is New with a channel that releases blocked handlers when the HTTP
// server around them is torn down, so t.Cleanup never waits on a hang.
func build(o Options, stop <-chan struct{}) *server.MCPServer {
	if o.Name == "" {
		o.Name = DefaultName
	}
	st := &state{o: o, stop: stop, gone: map[string]chan struct{}{}, ended: map[string]bool{}}
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		st.sessionEnded(session.SessionID())
	})
	s := server.NewMCPServer(o.Name, Version,
		server.WithToolCapabilities(true),
		server.WithPromptCapabilities(false),
		server.WithResourceCapabilities(false, false),
		// The weather tool's structured content is checked against its
		// output schema, so the schema a client sees is known to be honest.
		server.WithOutputSchemaValidation(),
		server.WithHooks(hooks),
	)
	if o.AddToolAfterList {
		var once sync.Once
		// The hook runs once the answer is made and before it is sent.
		hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) {
			once.Do(func() { addAdded(s) })
		})
	}
	st.addTools(s)
	addPrompt(s)
	addResource(s)
	return s
}

// plain drops the hints mcp.NewTool puts on every tool (readOnlyHint false,
// destructiveHint true, idempotentHint false, openWorldHint true), so that
// "annotated" is the only tool that says anything about itself.
func plain(name string, opts ...mcp.ToolOption) mcp.Tool {
	t := mcp.NewTool(name, opts...)
	t.Annotations = mcp.ToolAnnotation{}
	return t
}

// weatherOutputSchema is written out rather than generated from a struct so
// that what a client reads is exactly what the package documents.
const weatherOutputSchema = `{
	"type": "object",
	"properties": {
		"temperature": {"type": "number"},
		"city": {"type": "string"}
	},
	"required": ["temperature", "city"]
}`

// addAdded adds the tool "added". AddTool itself broadcasts
// notifications/tools/list_changed, because the server declared
// tools.listChanged.
func addAdded(s *server.MCPServer) {
	s.AddTool(plain(AddedTool, mcp.WithDescription("Exists once add_tool ran.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(AddedText), nil
		})
}

func (st *state) addTools(s *server.MCPServer) {
	s.AddTools(
		server.ServerTool{
			Tool: plain("echo",
				mcp.WithDescription("Returns its text."),
				mcp.WithString("text", mcp.Required(), mcp.Description("what to echo"))),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				text, err := req.RequireString("text")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return mcp.NewToolResultText(text), nil
			},
		},
		server.ServerTool{
			Tool: plain("image", mcp.WithDescription("Returns a 1x1 PNG and a caption.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					mcp.NewImageContent(TinyPNG, "image/png"),
					mcp.NewTextContent(ImageText),
				}}, nil
			},
		},
		server.ServerTool{
			Tool: plain("links", mcp.WithDescription("Returns a resource link and an embedded resource.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					mcp.NewResourceLink(ReadmeURI, "readme", "the project readme", "text/plain"),
					mcp.NewEmbeddedResource(mcp.TextResourceContents{
						URI: EmbeddedURI, MIMEType: "text/plain", Text: EmbeddedText,
					}),
				}}, nil
			},
		},
		server.ServerTool{
			Tool: plain("weather",
				mcp.WithDescription("Returns the temperature in a city as structured content."),
				mcp.WithString("city", mcp.Required(), mcp.Description("the city")),
				mcp.WithRawOutputSchema(json.RawMessage(weatherOutputSchema))),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				city, err := req.RequireString("city")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				out := map[string]any{"city": city, "temperature": WeatherCelsius}
				text, err := json.Marshal(out)
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultStructured(out, string(text)), nil
			},
		},
		server.ServerTool{
			Tool: plain("progress",
				mcp.WithDescription("Reports progress once per step when asked to."),
				mcp.WithInteger("steps", mcp.Required(), mcp.Description("how many steps"))),
			Handler: st.progress,
		},
		server.ServerTool{
			Tool: plain("fail", mcp.WithDescription("Always fails.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultError(FailText), nil
			},
		},
		server.ServerTool{
			Tool: plain("add_tool", mcp.WithDescription(`Adds the tool "added", which tells clients the tool list changed.`)),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				addAdded(s)
				return mcp.NewToolResultText(AddedTool), nil
			},
		},
		server.ServerTool{
			Tool:    plain("crash", mcp.WithDescription("Dies mid-call without answering.")),
			Handler: st.crash,
		},
		server.ServerTool{
			Tool:    plain("hang", mcp.WithDescription("Blocks until cancelled.")),
			Handler: st.hang,
		},
		server.ServerTool{
			Tool: mcp.NewTool("annotated",
				mcp.WithDescription("A tool that describes itself."),
				mcp.WithToolAnnotation(mcp.ToolAnnotation{
					Title:           "Annotated",
					ReadOnlyHint:    mcp.ToBoolPtr(true),
					DestructiveHint: mcp.ToBoolPtr(false),
				})),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			},
		},
		server.ServerTool{
			Tool: plain("environ", mcp.WithDescription("Returns the server's environment.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(strings.Join(slices.Sorted(slices.Values(os.Environ())), "\n")), nil
			},
		},
	)
}

func (st *state) progress(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	steps, err := req.RequireInt("steps")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	if token != nil {
		srv := server.ServerFromContext(ctx)
		for i := 1; i <= steps; i++ {
			err := srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": token,
				"progress":      i,
				"total":         steps,
				"message":       fmt.Sprintf("step %d", i),
			})
			if err != nil {
				return nil, fmt.Errorf("progress notification %d: %w", i, err)
			}
			// The pause comes after each notification, the last one too:
			// over stdio notifications and responses are written by
			// different goroutines, and the gap keeps them in order.
			select {
			case <-time.After(progressInterval):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("done after %d steps", steps)), nil
}

func (st *state) crash(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	crash, _ := ctx.Value(crashKey{}).(func())
	if crash == nil {
		return mcp.NewToolResultError("crash: this transport has no way to die"), nil
	}
	crash()
	// Over HTTP the handler outlives the connection it dropped; it waits for
	// the transport to notice, so that no response goes out even by chance.
	st.wait(ctx)
	return nil, errors.New("crashed")
}

func (st *state) hang(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	why := st.wait(ctx)
	if why != "" && st.o.CancelledFile != "" {
		if err := os.WriteFile(st.o.CancelledFile, []byte(why+"\n"), 0o644); err != nil {
			return nil, fmt.Errorf("hang: %w", err)
		}
	}
	return nil, errors.New("hang: " + why)
}

// wait blocks until the call is over for the client: its context is done
// (notifications/cancelled, or the HTTP request went away) or its session
// ended (the HTTP+SSE stream closed). It returns why, or "" when the server
// itself is shutting down.
func (st *state) wait(ctx context.Context) string {
	var gone <-chan struct{}
	if session := server.ClientSessionFromContext(ctx); session != nil && session.SessionID() != "" {
		gone = st.sessionGone(session.SessionID())
	}
	select {
	case <-ctx.Done():
		return "context: " + context.Cause(ctx).Error()
	case <-gone:
		return "session ended"
	case <-st.stop:
		return ""
	}
}

func (st *state) sessionGone(id string) <-chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	ch, ok := st.gone[id]
	if !ok {
		ch = make(chan struct{})
		st.gone[id] = ch
		if st.ended[id] {
			close(ch)
		}
	}
	return ch
}

func (st *state) sessionEnded(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended[id] {
		return
	}
	st.ended[id] = true
	if ch, ok := st.gone[id]; ok {
		close(ch)
	}
}

func addPrompt(s *server.MCPServer) {
	s.AddPrompt(mcp.NewPrompt("review",
		mcp.WithPromptDescription("Asks for a review of a file."),
		mcp.WithArgument("file", mcp.RequiredArgument(), mcp.ArgumentDescription("the file to review")),
	), func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		file := req.Params.Arguments["file"]
		if file == "" {
			return nil, errors.New(`argument "file" is required`)
		}
		return mcp.NewGetPromptResult("Review a file", []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Review "+file)),
		}), nil
	})
}

func addResource(s *server.MCPServer) {
	s.AddResource(mcp.NewResource(GreetingURI, "greeting",
		mcp.WithResourceDescription("A greeting."),
		mcp.WithMIMEType("text/plain"),
	), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{
			URI: GreetingURI, MIMEType: "text/plain", Text: GreetingText,
		}}, nil
	})
}
