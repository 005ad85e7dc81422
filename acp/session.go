package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// session is one ACP session: a runtime and the connection it reports to.
type session struct {
	id string
	rt *live.Runtime
	// ctl is the session's operations (its mode); rt is its runtime.
	ctl  *live.Controller
	conn *acpsdk.AgentSideConnection

	mu   sync.Mutex
	mode permission.Mode // the mode the client was last told
}

// close ends the session's run and releases its runtime.
func (s *session) close() { _ = s.rt.Close() }

// update sends one session/update notification. A client gone away ends
// the connection, and with it the run: the error needs no other answer.
func (s *session) update(ctx context.Context, u acpsdk.SessionUpdate) {
	_ = s.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(s.id), Update: u})
}

// prompt runs one prompt and streams its events; the answer's stop reason
// says how the run ended.
func (s *session) prompt(ctx context.Context, blocks []acpsdk.ContentBlock) (acpsdk.PromptResponse, error) {
	msg, err := userMessage(blocks)
	if err != nil {
		return acpsdk.PromptResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	var asks sync.WaitGroup
	defer asks.Wait()
	var done *agent.Done
	for ev := range s.rt.Live.Run(ctx, msg) {
		switch {
		case ev.Type == agent.EventPermissionAsk && ev.Ask != nil:
			// The agent waits for this answer; a subagent's events may go
			// on meanwhile, so the ask is put in its own goroutine.
			asks.Add(1)
			go func(ask *agent.PermissionAsk) {
				defer asks.Done()
				s.ask(ctx, ask)
			}(ev.Ask)
		case ev.Type == agent.EventQuestion && ev.Question != nil:
			// ACP has no questions for the person (its elicitation is
			// unstable): the model is told nobody answered.
			ev.Question.Answer(nil)
		case ev.Type == agent.EventDone && ev.ParentToolUseID == "":
			done = ev.Done
		case ev.Type == agent.EventToolResult:
			s.send(ctx, ev)
			// EnterPlanMode and ExitPlanMode switch the mode.
			s.noteMode(ctx)
		default:
			s.send(ctx, ev)
		}
	}
	return stopReason(ctx, done)
}

// send translates one event of the run into session updates.
func (s *session) send(ctx context.Context, ev agent.Event) {
	for _, u := range updates(ev) {
		s.update(ctx, u)
	}
}

// stopReason is the prompt's answer for the run's end.
func stopReason(ctx context.Context, d *agent.Done) (acpsdk.PromptResponse, error) {
	switch {
	case d != nil && d.Subtype == agent.SubtypeInterrupted, ctx.Err() != nil:
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	case d == nil:
		return acpsdk.PromptResponse{}, acpsdk.NewInternalError(map[string]any{"error": "the run ended without a result"})
	case d.Subtype == agent.SubtypeMaxTurns:
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonMaxTurnRequests}, nil
	case d.IsError:
		return acpsdk.PromptResponse{}, acpsdk.NewInternalError(map[string]any{"error": d.Error})
	case d.StopReason == llm.StopMaxTokens:
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonMaxTokens}, nil
	case d.StopReason == llm.StopRefusal:
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonRefusal}, nil
	}
	return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
}

// Permission options: the client answers with one of these ids.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject_once"
)

// ask puts a permission ask to the person as session/request_permission
// and answers it; no answer (the prompt cancelled, the client gone) is a
// denial.
func (s *session) ask(ctx context.Context, ask *agent.PermissionAsk) {
	opts := []acpsdk.PermissionOption{{Kind: acpsdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: optAllowOnce}}
	if len(ask.Suggestions) > 0 {
		opts = append(opts, acpsdk.PermissionOption{Kind: acpsdk.PermissionOptionKindAllowAlways, Name: "Always allow " + ask.Suggestions[0], OptionId: optAllowAlways})
	}
	opts = append(opts, acpsdk.PermissionOption{Kind: acpsdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optReject})
	call := llm.ToolCall{ID: ask.ID, Name: ask.Tool, Input: ask.Input}
	title := toolTitle(call)
	kind := toolKind(call.Name)
	resp, err := s.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(s.id),
		ToolCall: acpsdk.ToolCallUpdate{
			ToolCallId: acpsdk.ToolCallId(ask.ID),
			Title:      &title,
			Kind:       &kind,
			Status:     acpsdk.Ptr(acpsdk.ToolCallStatusPending),
			Locations:  locations(call),
			Content:    callContent(call),
			RawInput:   rawJSON(ask.Input),
		},
		Options: opts,
	})
	ans := agent.PermissionAnswer{Message: "The person did not allow this call."}
	switch {
	case err != nil:
		ans.Message = fmt.Sprintf("The editor did not answer the permission request (%v).", err)
	case resp.Outcome.Selected != nil:
		switch resp.Outcome.Selected.OptionId {
		case optAllowOnce:
			ans = agent.PermissionAnswer{Allow: true}
		case optAllowAlways:
			ans = agent.PermissionAnswer{Allow: true, Always: len(ask.Suggestions) > 0, Rule: first(ask.Suggestions)}
		}
	}
	ask.Answer(ans)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// noteMode tells the client the session's mode when it changed since it
// was last told.
func (s *session) noteMode(ctx context.Context) {
	m := s.rt.Checker.Mode()
	s.mu.Lock()
	changed := m != s.mode
	s.mode = m
	s.mu.Unlock()
	if changed {
		s.update(ctx, acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{SessionUpdate: "current_mode_update", CurrentModeId: acpsdk.SessionModeId(m)}})
	}
}

// announceCommands tells the client the session's slash commands and
// skills.
func (s *session) announceCommands(ctx context.Context) {
	s.update(ctx, acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{
		SessionUpdate: "available_commands_update", AvailableCommands: availableCommands(s.rt),
	}})
}

// userMessage is a prompt's content blocks as the user's message: text
// as it is, links as mentions the model can Read, embedded resources as
// context blocks, images as images.
func userMessage(blocks []acpsdk.ContentBlock) (llm.Message, error) {
	msg := llm.Message{Role: llm.RoleUser}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			msg.Parts = append(msg.Parts, llm.TextPart(b.Text.Text))
		case b.ResourceLink != nil:
			msg.Parts = append(msg.Parts, llm.TextPart(fmt.Sprintf("[@%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri)))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			msg.Parts = append(msg.Parts, llm.TextPart(fmt.Sprintf("<context ref=%q>\n%s\n</context>", r.Uri, r.Text)))
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return msg, fmt.Errorf("an image's data is not base64: %v", err)
			}
			msg.Parts = append(msg.Parts, llm.Part{Type: llm.PartImage, MediaType: b.Image.MimeType, Data: data})
		default:
			return msg, fmt.Errorf("nova takes text, resource links, embedded text resources and images in a prompt")
		}
	}
	if strings.TrimSpace(msg.Text()) == "" && len(msg.Parts) == 0 {
		return msg, fmt.Errorf("the prompt is empty")
	}
	return msg, nil
}
