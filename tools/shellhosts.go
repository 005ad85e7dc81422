package tools

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/nova-dev/nova/permission"
)

// The network question. When the sandbox filters the network, every host a
// sandboxed command reaches through nova's proxy is judged: allowed domains
// and WebFetch domain rules let it through, deny rules refuse it, and the
// rest is asked of the person whose Bash call runs the command, through the
// same Asker (and so the same dialog in the terminal and the browser) as
// the call's own permission ask. The question is a permission ask of that
// call whose reason is "Network request outside the sandbox: HOST" and
// whose suggestion is the rule WebFetch(domain:HOST).

// hostChecker is a Checker that also judges the hosts of sandboxed
// commands (*permission.Checker).
type hostChecker interface {
	CheckHost(host string) permission.Decision
}

// hostConfiner is a Sandbox that lets each command's hosts be judged by a
// decider of its own (*sandbox.Sandbox, whose HostDecider is this func).
type hostConfiner interface {
	ConfineHosts(cmd *exec.Cmd, decide func(host string, port int) error) (release func(), err error)
}

type hostsKey struct{}

// callHosts judges the hosts of one call's command: it asks at most once
// per host (requests that arrive while the question is open wait for its
// answer), and remembers the hosts it refused so the model is told.
type callHosts struct {
	ctx     context.Context
	checker hostChecker
	allow   func(rule string) error // Checker.AllowAlways
	ask     Asker                   // nil: nobody to ask (print mode)
	call    Call

	mu      sync.Mutex
	answers map[string]*hostAnswer
	refused []string // what each refused host was told, one per host
	hosts   []string // the hosts of refused
}

// hostAnswer is the answer about one host for the rest of the command;
// done is closed once err is set.
type hostAnswer struct {
	done chan struct{}
	err  error
}

// withHosts gives a running call the judge of its command's hosts, when
// the checker can judge hosts at all.
func withHosts(ctx context.Context, c Checker, ask Asker, call Call) context.Context {
	hc, ok := c.(hostChecker)
	if !ok {
		return ctx
	}
	h := &callHosts{ctx: ctx, checker: hc, allow: c.AllowAlways, ask: ask, call: call, answers: map[string]*hostAnswer{}}
	return context.WithValue(ctx, hostsKey{}, h)
}

// hostsOf returns the judge of the running call's hosts; nil outside a
// pipeline call.
func hostsOf(ctx context.Context) *callHosts {
	h, _ := ctx.Value(hostsKey{}).(*callHosts)
	return h
}

// unasked is h for a command that outlives its call (run_in_background):
// nobody is asked after the call has returned, so the hosts not allowed
// are refused.
func (h *callHosts) unasked() *callHosts {
	if h == nil {
		return nil
	}
	return &callHosts{ctx: context.WithoutCancel(h.ctx), checker: h.checker, allow: h.allow, call: h.call, answers: map[string]*hostAnswer{}}
}

// decide is the command's HostDecider.
func (h *callHosts) decide(host string, _ int) error {
	d := h.checker.CheckHost(host)
	switch d.Behavior {
	case permission.Allow:
		return nil
	case permission.Deny:
		return h.refuse(host, d.Reason)
	}
	h.mu.Lock()
	a, asked := h.answers[host]
	if !asked {
		a = &hostAnswer{done: make(chan struct{})}
		h.answers[host] = a
	}
	h.mu.Unlock()
	if asked {
		select {
		case <-a.done:
			return a.err
		case <-h.ctx.Done():
			return h.refuse(host, "the call was interrupted")
		}
	}
	a.err = h.put(host, d)
	close(a.done)
	return a.err
}

// put asks the person about host and acts on the answer.
func (h *callHosts) put(host string, d permission.Decision) error {
	if h.ask == nil {
		return h.refuse(host, "it is not in sandbox.network.allowedDomains, and nobody can be asked in this mode")
	}
	if d.Reason == "" {
		d.Reason = "Network request outside the sandbox: " + host
	}
	if len(d.Suggestions) == 0 {
		d.Suggestions = []string{permission.HostRule(host)}
	}
	ans := h.ask.AskPermission(h.ctx, PermissionAsk{CallID: h.call.ID, Tool: h.call.Name, Input: h.call.Input, Decision: d, Host: host})
	if h.ctx.Err() != nil {
		return h.refuse(host, "the call was interrupted")
	}
	if !ans.Allow {
		why := "the user said no"
		if ans.Message != "" {
			// Also what an Asker says when it could reach nobody (a
			// command with no run to ask through).
			why = "it was not allowed: " + ans.Message
		}
		return h.refuse(host, why)
	}
	if ans.Rule != "" && slices.Contains(d.Suggestions, ans.Rule) {
		// "Always" holds for the session at once and is saved where every
		// "always" is; a failure to save still lets this request through.
		_ = h.allow(ans.Rule)
	}
	return nil
}

// refuse records host as refused and returns what the command reads in
// the proxy's answer.
func (h *callHosts) refuse(host, why string) error {
	msg := hostRefusal(host, why)
	h.mu.Lock()
	if !slices.Contains(h.hosts, host) {
		h.hosts, h.refused = append(h.hosts, host), append(h.refused, msg)
	}
	h.mu.Unlock()
	return errors.New(msg)
}

// refusedNote is what the model is told after the command, beside its
// output, about the hosts the sandbox refused: a command's own error
// ("CONNECT tunnel failed, response 403") does not say why, or how to
// allow them. "" when none was refused.
func (h *callHosts) refusedNote() string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out string
	for _, msg := range h.refused {
		out += "\n[" + msg + "]"
	}
	return out
}

// hostRefusal says that the sandbox refused host, why, and how to allow
// it; the same words as sandbox.RefusalText, which tools cannot import.
func hostRefusal(host, why string) string {
	return fmt.Sprintf("nova's sandbox refused a network request to %s: %s. "+
		"To allow it, add %q to sandbox.network.allowedDomains in .nova/settings.json, "+
		"or run nova with --allowedTools %q", host, why, host, permission.HostRule(host))
}

// confine puts cmd inside env's sandbox, its hosts judged by hosts when
// there is one and the sandbox takes a decider per command.
func confine(env *Env, cmd *exec.Cmd, hosts *callHosts) (func(), error) {
	if hc, ok := env.Sandbox.(hostConfiner); ok && hosts != nil {
		return hc.ConfineHosts(cmd, hosts.decide)
	}
	return env.Sandbox.Confine(cmd)
}

// proxyVarsPattern are the variables that point HTTP clients at a proxy,
// as a bash case pattern. When the sandbox filters the network they are
// each command's own, never the shell's saved state: inside, they name the
// proxy's port of that command (a new one each time, so a restored one
// leads nowhere); outside, nova's own environment's, not what a sandboxed
// command left.
const proxyVarsPattern = "http_proxy|https_proxy|all_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|ALL_PROXY|NO_PROXY"

// proxyVar reports whether name is one of proxyVarsPattern.
func proxyVar(name string) bool {
	return slices.Contains(strings.Split(proxyVarsPattern, "|"), name)
}

// proxiedShell reports whether env's sandbox sends commands through nova's
// filtering proxy.
func proxiedShell(env *Env) bool {
	f, ok := env.Sandbox.(interface{ Filtered() bool })
	return ok && f.Filtered()
}
