package live

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// TitleMax is the length, in characters, of a title made from a prompt.
const TitleMax = 60

// titleTimeout bounds the model's title call: a slow provider must not
// leave a session unnamed for long, nor hold up the Close that waits for
// it.
const titleTimeout = 15 * time.Second

// ShortTitle makes a session title from a prompt: its first non-blank
// line, spaces collapsed, cut at a word boundary to at most TitleMax
// characters (an ellipsis included).
func ShortTitle(prompt string) string {
	line := ""
	for l := range strings.SplitSeq(prompt, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			line = l
			break
		}
	}
	r := []rune(line)
	if len(r) <= TitleMax {
		return line
	}
	cut := TitleMax - 1 // room for the ellipsis
	end := cut
	for i := cut; i > cut/2; i-- {
		if r[i] == ' ' {
			end = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:end]), func(c rune) bool {
		return unicode.IsSpace(c) || unicode.IsPunct(c) && c != ')' && c != '"' && c != '\''
	}) + "…"
}

// titled is the Runner every session's runs go through, whichever
// frontend starts them: the one title policy. When a run of a session
// with no title ends, the session is named, before the done event is
// passed on (so whoever sees the run end sees the title, and the title
// request goes out before the next prompt can).
type titled struct {
	rt   *Runtime
	next Runner
}

// Run implements Runner.
func (t titled) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	ch := t.next.Run(ctx, input)
	out := make(chan agent.Event, cap(ch))
	go func() {
		defer close(out)
		for ev := range ch {
			if ev.Type == agent.EventDone {
				t.rt.nameSession()
			}
			out <- ev
		}
	}()
	return out
}

// nameSession names the runtime's session after its first exchange,
// once, unless it has a title (-n, a rename, an earlier runtime's). With
// TitleFromModel the model is asked for a short title in the background
// (one small call the person pays for, which makes /resume readable),
// the prompt cut short standing in when that fails or the runtime closes
// first; otherwise the prompt cut short is the title at once.
func (rt *Runtime) nameSession() {
	rt.titleMu.Lock()
	defer rt.titleMu.Unlock()
	if rt.titleStarted || rt.Session.Meta().Title != "" {
		return
	}
	prompt := rt.Agent.FirstPrompt()
	if prompt == "" {
		return
	}
	rt.titleStarted = true
	if !rt.titleFromModel {
		_ = rt.Session.SetTitle(ShortTitle(prompt))
		return
	}
	done := make(chan struct{})
	rt.titleDone = done
	started := rt.Go(func(life context.Context) {
		defer close(done)
		ctx, cancel := context.WithTimeout(life, titleTimeout)
		defer cancel()
		title, err := rt.Agent.Title(ctx)
		if err != nil || title == "" {
			title = ShortTitle(prompt)
		}
		if title != "" {
			_ = rt.Session.SetTitle(title)
		}
	})
	if !started {
		close(done)
		_ = rt.Session.SetTitle(ShortTitle(prompt))
	}
}

// WaitTitle waits for the title call in progress, if any, to end on its
// own.
func (rt *Runtime) WaitTitle() {
	rt.titleMu.Lock()
	done := rt.titleDone
	rt.titleMu.Unlock()
	if done != nil {
		<-done
	}
}
