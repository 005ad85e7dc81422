package live

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// A question of AskUserQuestion is pending in its session until it is
// answered, once, by id; the answer reaches the model.
func TestSessionAnswerQuestion(t *testing.T) {
	input := `{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite"}]}]}`
	h, model := newTestHost(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_q", Name: "AskUserQuestion", Input: input}}},
		llmtest.Turn{Text: "Going with it."})
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := sess.Start(llm.UserText("pick one"))
	if err != nil {
		t.Fatal(err)
	}
	var q *agent.QuestionAsk
	for q == nil {
		if f := next(t, sub); f.Value.Type == agent.EventQuestion {
			q = f.Value.Question
		}
	}
	if p := sess.PendingQuestions(); len(p) != 1 || p[0].ID != q.ID {
		t.Errorf("pending = %+v", p)
	}
	if err := sess.AnswerQuestion("nope", []string{"x"}); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("an unknown id: %v", err)
	}
	if err := sess.AnswerQuestion(q.ID, []string{"SQLite"}); err != nil {
		t.Fatalf("answer: %v", err)
	}
	if err := sess.AnswerQuestion(q.ID, []string{"Postgres"}); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("a second answer: %v", err)
	}
	for f := next(t, sub); f.Value.Type != agent.EventDone; f = next(t, sub) {
	}
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "SQLite") {
		t.Errorf("the model was not told the answer: %d requests", len(reqs))
	}
	if p := sess.PendingQuestions(); len(p) != 0 {
		t.Errorf("pending after the run = %+v", p)
	}
}
