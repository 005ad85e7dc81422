package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// WebFetch defaults: a page larger than the body limit is cut, and the
// Markdown handed to the model is cut again so one page cannot flood the
// conversation (the pipeline spills anything over 50,000 characters).
const (
	webFetchDefaultTimeout = 30 * time.Second
	webFetchMaxBody        = 5 << 20
	webFetchMaxMarkdown    = 100_000
	webFetchMaxRedirects   = 5
)

// WebFetch fetches a URL and returns it as Markdown, headed by the question
// the model asked about it.
type WebFetch struct {
	Input[webFetchInput]
	// Timeout bounds the whole fetch, body included; 0 means 30s.
	Timeout time.Duration
	// MaxBytes bounds the body read; 0 means 5 MB.
	MaxBytes int64
}

type webFetchInput struct {
	URL    string `json:"url" jsonschema:"The URL to fetch content from"`
	Prompt string `json:"prompt" jsonschema:"The question to answer from the fetched content"`
}

// tuneSchema says url is a URI.
func (webFetchInput) tuneSchema(s *jsonschema.Schema) { prop(s, "url").Format = "uri" }

// Name implements Tool.
func (*WebFetch) Name() string { return "WebFetch" }

// Kind implements Tool: WebFetch reaches the network.
func (*WebFetch) Kind() permission.Kind { return permission.KindFetch }

// Description implements Tool.
func (*WebFetch) Description() string {
	return `Fetches content from a URL and returns it to you as Markdown, headed by your prompt.

- url must be a fully-formed http:// or https:// URL. Only GET requests are made.
- prompt is the question you want answered from the page (e.g. "What are the breaking changes in v2?"). No other model reads the page for you: the result is the page content itself, and you answer the prompt from it.
- HTML is converted to Markdown; plain text, JSON and other text types are returned as they are; binary content (images, PDFs, archives) is refused.
- Bodies over 5 MB are cut, and Markdown over 100,000 characters is cut, with a note. The fetch times out after 30 seconds.
- Redirects within the same host are followed (at most 5). A redirect to a different host is not followed: the result names the new URL, and you may fetch it with another WebFetch call if you trust it.
- A status other than 2xx is reported as an error with the status.
- Each new domain may need the user's permission. This tool is read-only and does not modify any files.`
}

// Permission implements Permissioner: the request names the host fetched.
func (*WebFetch) Permission(input json.RawMessage, env *Env) permission.Request {
	req := permission.Request{Tool: "WebFetch", Kind: permission.KindFetch}
	var in webFetchInput
	if json.Unmarshal(input, &in) != nil {
		return req
	}
	if u, err := url.Parse(in.URL); err == nil {
		req.Domain = strings.ToLower(u.Hostname())
	}
	return req
}

// webFetchTooManyRedirects stops a chain of same-host redirects.
type webFetchTooManyRedirects struct{}

func (webFetchTooManyRedirects) Error() string { return "stopped after too many redirects" }

// Run implements Tool.
func (w *WebFetch) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in webFetchInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for WebFetch: %v", err), nil
	}
	u, err := url.Parse(strings.TrimSpace(in.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf("invalid URL %q: give a fully-formed http:// or https:// URL", in.URL), nil
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = webFetchDefaultTimeout
	}
	limit := w.MaxBytes
	if limit <= 0 {
		limit = webFetchMaxBody
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !webFetchSameHost(req.URL, u) || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
			return http.ErrUseLastResponse // reported to the model, not followed
		}
		if len(via) > webFetchMaxRedirects {
			return webFetchTooManyRedirects{}
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Errorf("invalid URL %q: %v", in.URL, err), nil
	}
	req.Header.Set("User-Agent", "nova-webfetch/1.0 (+terminal coding assistant)")
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return webFetchError(ctx, u, timeout, err), nil
	}
	defer resp.Body.Close()
	final := resp.Request.URL

	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, lerr := resp.Location()
		if lerr != nil {
			return Errorf("%s answered %s without a usable Location", final, resp.Status), nil
		}
		return Result{
			Output:  fmt.Sprintf("%s redirected to %s, which is on a different host, so it was not followed. Fetch that URL with WebFetch if you trust it.", final, loc),
			Display: display.OfFetch(display.Fetch{URL: final.String(), Redirect: loc.String(), Status: resp.StatusCode}),
		}, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		msg := fmt.Sprintf("fetching %s failed: HTTP %s", final, resp.Status)
		if s := strings.TrimSpace(string(snippet)); s != "" && !strings.Contains(strings.ToLower(s), "<html") {
			msg += ": " + s
		}
		return Errorf("%s", msg), nil
	}

	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return webFetchError(ctx, u, timeout, err), nil
	}
	cut := int64(len(body)) > limit
	if cut {
		body = body[:limit]
	}
	text, kind, title, err := webFetchText(body, resp.Header.Get("Content-Type"), final)
	if err != nil {
		return Errorf("%s: %v", final, err), nil
	}
	var notes []string
	if cut {
		notes = append(notes, fmt.Sprintf("[the response was larger than %d bytes; only the first %d bytes were read]", limit, limit))
	}
	if len(text) > webFetchMaxMarkdown {
		k := cutIndex(text, webFetchMaxMarkdown)
		notes = append(notes, fmt.Sprintf("[content cut at %d of %d characters]", k, len(text)))
		text = text[:k]
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Prompt: %s\n\n", strings.TrimSpace(in.Prompt))
	fmt.Fprintf(&b, "Answer the prompt above from the content of %s below (%s, fetched just now", final, kind)
	if final.String() != u.String() {
		fmt.Fprintf(&b, " after redirects from %s", u)
	}
	b.WriteString("). Quote sparingly and say when the page does not answer it.\n")
	if title != "" {
		fmt.Fprintf(&b, "Page title: %s\n", title)
	}
	b.WriteString("\n---\n\n")
	b.WriteString(strings.TrimSpace(text))
	b.WriteString("\n")
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	return Result{
		Output:  strings.TrimSuffix(b.String(), "\n"),
		Display: display.OfFetch(display.Fetch{URL: final.String(), Status: resp.StatusCode, Bytes: len(body), ContentType: kind, Truncated: cut}),
	}, nil
}

// webFetchSameHost compares hosts as the permission check sees them (the
// name, without port), with "www." treated as the same site.
func webFetchSameHost(a, b *url.URL) bool {
	h := func(u *url.URL) string { return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") }
	return h(a) == h(b)
}

// webFetchError words a transport failure for the model.
func webFetchError(ctx context.Context, u *url.URL, timeout time.Duration, err error) Result {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Errorf("fetching %s timed out after %s", u, timeout)
	case errors.As(err, new(webFetchTooManyRedirects)):
		return Errorf("fetching %s: more than %d redirects", u, webFetchMaxRedirects)
	}
	return Errorf("fetching %s failed: %v", u, err)
}

// webFetchText turns a body into text by its content type: HTML becomes
// Markdown (and its title is returned, as the conversion drops <head>),
// other text stays as it is, binary is refused. kind names what was done.
func webFetchText(body []byte, contentType string, page *url.URL) (text, kind, title string, err error) {
	media, _, perr := mime.ParseMediaType(contentType)
	if contentType == "" || perr != nil {
		media, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		contentType = media
	}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		r, err := charset.NewReader(bytes.NewReader(body), contentType)
		if err != nil {
			return "", "", "", fmt.Errorf("decode %s: %w", media, err)
		}
		conv := converter.NewConverter(converter.WithPlugins(
			base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(),
			table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin(),
		))
		// Page chrome that carries no content for the model.
		for _, tag := range []string{"nav", "svg", "form", "button", "template"} {
			conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
		}
		md, err := conv.ConvertReader(r, converter.WithDomain(page.String()))
		if err != nil {
			return "", "", "", fmt.Errorf("convert HTML to Markdown: %w", err)
		}
		return string(md), "HTML converted to Markdown", webFetchTitle(body), nil
	case webFetchIsText(media):
		r, err := charset.NewReader(bytes.NewReader(body), contentType)
		if err != nil {
			return string(body), media, "", nil
		}
		data, _ := io.ReadAll(r)
		return string(data), media, "", nil
	}
	return "", "", "", fmt.Errorf("the content type is %s, which WebFetch cannot show as text", media)
}

// webFetchTitle returns the text of the page's <title>, if it comes
// before <body>.
func webFetchTitle(body []byte) string {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			switch name, _ := z.TagName(); string(name) {
			case "title":
				if z.Next() == html.TextToken {
					return strings.Join(strings.Fields(string(z.Text())), " ")
				}
				return ""
			case "body":
				return ""
			}
		}
	}
}

func webFetchIsText(media string) bool {
	if strings.HasPrefix(media, "text/") {
		return true
	}
	switch media {
	case "application/json", "application/ld+json", "application/xml", "application/javascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/rss+xml", "application/atom+xml", "application/x-sh", "application/sql":
		return true
	}
	return strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml")
}
