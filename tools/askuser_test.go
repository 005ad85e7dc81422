package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// askUserFake answers questions from a script and records what it was asked.
type askUserFake struct {
	answers []string
	err     error
	asked   []Question
}

func (f *askUserFake) AskPermission(context.Context, PermissionAsk) Approval {
	return Approval{}
}

func (f *askUserFake) AskQuestions(_ context.Context, qs []Question) ([]string, error) {
	f.asked = qs
	return f.answers, f.err
}

func askInput() map[string]any {
	return map[string]any{"questions": []map[string]any{
		{"question": "Which database should we use?", "header": "Database", "options": []map[string]any{
			{"label": "Postgres (Recommended)", "description": "Robust"},
			{"label": "SQLite", "description": "Simple"},
		}},
		{"question": "Which features?", "header": "Features", "multiSelect": true, "options": []map[string]any{
			{"label": "Auth"}, {"label": "Search"}, {"label": "Export"},
		}},
	}}
}

func TestAskUserQuestion(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	asker := &askUserFake{answers: []string{"SQLite", "Auth, Search"}}
	env.Ask = asker
	res := ftRun(t, &AskUserQuestion{}, env, askInput())
	want := "The user answered your questions:\n" +
		"Which database should we use? → SQLite\n" +
		"Which features? → Auth, Search\n" +
		"Continue with these answers in mind."
	if res.IsError || res.Output != want {
		t.Errorf("output:\n got %q\nwant %q", res.Output, want)
	}
	if len(asker.asked) != 2 || !asker.asked[1].MultiSelect || asker.asked[0].Options[0].Label != "Postgres (Recommended)" || asker.asked[0].Header != "Database" {
		t.Errorf("asker got %+v", asker.asked)
	}

	asker.answers = []string{"Postgres (Recommended)"} // the second left unanswered
	if res := ftRun(t, &AskUserQuestion{}, env, askInput()); !strings.Contains(res.Output, "Which features? → (no answer)") {
		t.Errorf("missing answer: %q", res.Output)
	}

	asker.err = errors.New("dismissed")
	if res := ftRun(t, &AskUserQuestion{}, env, askInput()); !res.IsError || !strings.Contains(res.Output, "did not answer (dismissed)") {
		t.Errorf("asker error: %+v", res)
	}
}

func TestAskUserQuestionNobodyToAsk(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir()) // print mode: Ask is nil
	res := ftRun(t, &AskUserQuestion{}, env, askInput())
	if res.IsError || !strings.Contains(res.Output, "Nobody can answer") || !strings.Contains(res.Output, "best judgement") || !strings.Contains(res.Output, "assumptions") {
		t.Errorf("nil Ask: %+v", res)
	}
}

func TestAskUserQuestionRejects(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	env.Ask = &askUserFake{}
	opts := []map[string]any{{"label": "A"}, {"label": "B"}}
	cases := []struct {
		qs   []map[string]any
		want string
	}{
		{[]map[string]any{
			{"question": "Same?", "header": "h", "options": opts},
			{"question": "Same?", "header": "h", "options": opts},
		}, "asked twice"},
		{[]map[string]any{{"question": "Dup?", "header": "h", "options": []map[string]any{{"label": "A"}, {"label": "A"}}}}, `option "A" appears twice`},
		{[]map[string]any{{"question": "  ", "header": "h", "options": opts}}, "question is empty"},
	}
	for _, c := range cases {
		res := ftRun(t, &AskUserQuestion{}, env, map[string]any{"questions": c.qs})
		if !res.IsError || !strings.Contains(res.Output, c.want) {
			t.Errorf("AskUserQuestion(%v) = %+v, want an error containing %q", c.qs, res, c.want)
		}
	}
	reg := NewRegistry()
	if err := reg.Register(&AskUserQuestion{}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"questions":[]}`,
		`{"questions":[{"question":"Q?","header":"h","options":[{"label":"only one"}]}]}`,
		`{"questions":[{"question":"1?","header":"h","options":[{"label":"a"},{"label":"b"}]},{"question":"2?","header":"h","options":[{"label":"a"},{"label":"b"}]},{"question":"3?","header":"h","options":[{"label":"a"},{"label":"b"}]},{"question":"4?","header":"h","options":[{"label":"a"},{"label":"b"}]},{"question":"5?","header":"h","options":[{"label":"a"},{"label":"b"}]}]}`,
	} {
		if err := reg.validate("AskUserQuestion", []byte(bad)); err == nil {
			t.Errorf("the schema accepted %s", bad)
		}
	}
}
