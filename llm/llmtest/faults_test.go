package llmtest

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// rawStream posts body to path and returns the response with the text
// deltas it carried (for each format's delta event) and the read error.
func rawStream(t *testing.T, srv *Server, path, body string) (*http.Response, int, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	deltas := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "data: ") &&
			(strings.Contains(line, `"text_delta"`) || strings.Contains(line, `"content":"`) && !strings.Contains(line, `"content":""`) ||
				strings.Contains(line, `"response.output_text.delta"`)) {
			deltas++
		}
	}
	return resp, deltas, sc.Err()
}

var formats = []struct{ name, path, body string }{
	{"anthropic", "/v1/messages", `{"model":"m","max_tokens":10,"messages":[]}`},
	{"chat", "/v1/chat/completions", `{"model":"m","messages":[]}`},
	{"responses", "/v1/responses", `{"model":"m","input":"hi"}`},
}

func TestCutAfterText(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			srv := New(Turn{Text: "one two three four five six seven eight", CutAfterText: 2})
			defer srv.Close()
			_, deltas, err := rawStream(t, srv, f.path, f.body)
			if err == nil {
				t.Error("the stream ended cleanly, want the connection dropped")
			}
			if deltas != 2 {
				t.Errorf("%d text deltas before the cut, want 2", deltas)
			}

			// Control: without the fault every delta arrives, cleanly.
			whole := New(Turn{Text: "one two three four five six seven eight"})
			defer whole.Close()
			if _, deltas, err := rawStream(t, whole, f.path, f.body); err != nil || deltas < 3 {
				t.Errorf("whole stream: %d deltas, err %v", deltas, err)
			}
		})
	}
}

func TestRetryAfterOnStream(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			srv := New(Turn{Text: "x", StreamError: true, RetryAfter: "3", RetryAfterMS: "2500"})
			defer srv.Close()
			resp, _, _ := rawStream(t, srv, f.path, f.body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("retry-after") != "3" || resp.Header.Get("retry-after-ms") != "2500" {
				t.Errorf("status %d, retry-after %q, retry-after-ms %q", resp.StatusCode, resp.Header.Get("retry-after"), resp.Header.Get("retry-after-ms"))
			}
		})
	}
}
