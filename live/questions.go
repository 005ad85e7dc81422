package live

import (
	"errors"
	"sync"

	"github.com/nova-dev/nova/agent"
)

// ErrNoQuestion is returned when an answer names no pending question of
// the session: unknown, already answered, or another session's.
var ErrNoQuestion = errors.New("no such pending question in this session")

// questions are a session's AskUserQuestion questions waiting for an
// answer, so a remote can answer them by id (as Answer does asks).
type questions struct {
	mu      sync.Mutex
	pending map[string]*agent.QuestionAsk
}

// see keeps track of ev: a question is pending from its event until it
// is answered, by whoever, or its run ends (forgetAll).
func (q *questions) see(ev agent.Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case ev.Type == agent.EventQuestion && ev.Question != nil:
		if q.pending == nil {
			q.pending = map[string]*agent.QuestionAsk{}
		}
		q.pending[ev.Question.ID] = ev.Question
	case ev.Type == agent.EventAnswered && ev.Answered != nil && ev.Answered.RequestID == "":
		delete(q.pending, ev.Answered.ID)
	}
}

func (q *questions) forgetAll() {
	q.mu.Lock()
	q.pending = nil
	q.mu.Unlock()
}

// take removes and returns the pending question id.
func (q *questions) take(id string) *agent.QuestionAsk {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.pending[id]
	delete(q.pending, id)
	return a
}

func (q *questions) list() []*agent.QuestionAsk {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]*agent.QuestionAsk, 0, len(q.pending))
	for _, a := range q.pending {
		out = append(out, a)
	}
	return out
}

// PendingQuestions returns the questions waiting for an answer, in no
// set order.
func (s *Session) PendingQuestions() []*agent.QuestionAsk { return s.questions.list() }

// AnswerQuestion answers the pending question id of this session, once,
// with one answer per question in order; nil declines to answer. An id
// that is unknown, already answered (here or in the terminal) or another
// session's is ErrNoQuestion.
func (s *Session) AnswerQuestion(id string, answers []string) error {
	q := s.questions.take(id)
	if q == nil || !q.Answer(answers) {
		return ErrNoQuestion
	}
	return nil
}
