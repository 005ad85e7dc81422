package llm_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// call and result build parts.
func callPart(id, name, input string) llm.Part {
	return llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}}
}

func resultPart(id, out string) llm.Part {
	return llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Name: "Read", Content: []llm.Part{llm.TextPart(out)}}}
}

func asst(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleAssistant, Parts: parts} }
func user(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleUser, Parts: parts} }

// results returns the call ids answered in msgs, message by message, and
// the text of each answer, for comparing repairs at a glance.
func answers(msgs []llm.Message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				var s strings.Builder
				for _, c := range p.ToolResult.Content {
					s.WriteString(c.Text)
				}
				out[p.ToolResult.CallID] = s.String()
			}
		}
	}
	return out
}

func callIDs(msgs []llm.Message) []string {
	var ids []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls() {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// TestRepairHistoryCases runs the damage of the reliability report, each
// through every provider: unrepaired, the request breaks the provider's
// rules (the check can fail); repaired, it is accepted and says what was
// lost.
func TestRepairHistoryCases(t *testing.T) {
	w := newWire(t)
	prompt := llm.UserText("look at the files")
	goOn := llm.UserText("go on")
	tests := []struct {
		name string
		msgs []llm.Message
		// refusedBy are the providers that refuse the damaged history (or
		// whose client cannot even encode it); empty means all of them.
		refusedBy []string
		check     func(t *testing.T, got []llm.Message)
	}{
		{
			name: "the line holding the call was skipped: its result is dropped",
			msgs: []llm.Message{prompt, user(resultPart("toolu_1", "a.txt says hi")), asst(llm.TextPart("It says hi.")), goOn},
			check: func(t *testing.T, got []llm.Message) {
				if len(answers(got)) != 0 {
					t.Errorf("results kept: %v", answers(got))
				}
			},
		},
		{
			name: "the line holding the result was skipped: the call is answered as lost",
			msgs: []llm.Message{prompt, asst(llm.TextPart("Reading."), callPart("toolu_1", "Read", `{"file_path":"a.txt"}`)), asst(llm.TextPart("It says hi.")), goOn},
			check: func(t *testing.T, got []llm.Message) {
				if a := answers(got); a["toolu_1"] != llm.LostResultText {
					t.Errorf("answers = %v, want toolu_1 answered with LostResultText", a)
				}
			},
		},
		{
			name: "input that is not JSON is kept as a JSON string",
			msgs: []llm.Message{prompt, asst(callPart("toolu_1", "Bash", `{"command": "ls -la /tm`)), user(resultPart("toolu_1", "not run")), goOn},
			// The Anthropic client sends such input as {}; the OpenAI
			// clients cannot encode it, nor can the session save it.
			refusedBy: []string{"chat", "responses"},
			check: func(t *testing.T, got []llm.Message) {
				in := got[1].ToolCalls()[0].Input
				var s string
				if err := json.Unmarshal(in, &s); err != nil || s != `{"command": "ls -la /tm` {
					t.Errorf("input = %s, want the text as a JSON string", in)
				}
			},
		},
		{
			name: "an id reused in one turn is renamed in the call and its result",
			msgs: []llm.Message{prompt, asst(callPart("toolu_1", "Read", `{"file_path":"a"}`), callPart("toolu_1", "Read", `{"file_path":"b"}`)),
				user(resultPart("toolu_1", "A"), resultPart("toolu_1", "B")), goOn},
			check: func(t *testing.T, got []llm.Message) {
				if ids := callIDs(got); !reflect.DeepEqual(ids, []string{"toolu_1", "toolu_1_2"}) {
					t.Errorf("ids = %v", ids)
				}
				if a := answers(got); a["toolu_1"] != "A" || a["toolu_1_2"] != "B" {
					t.Errorf("answers = %v, want each call its own result", a)
				}
			},
		},
		{
			name: "an id reused across turns is renamed in the later call and its result",
			msgs: []llm.Message{prompt, asst(callPart("toolu_1", "Read", `{"file_path":"a"}`)), user(resultPart("toolu_1", "A")),
				asst(callPart("toolu_1", "Read", `{"file_path":"b"}`)), user(resultPart("toolu_1", "B")), goOn},
			check: func(t *testing.T, got []llm.Message) {
				if ids := callIDs(got); !reflect.DeepEqual(ids, []string{"toolu_1", "toolu_1_2"}) {
					t.Errorf("ids = %v", ids)
				}
				if a := answers(got); a["toolu_1"] != "A" || a["toolu_1_2"] != "B" {
					t.Errorf("answers = %v", a)
				}
			},
		},
		{
			name: "a full disk kept the calls and lost their results",
			msgs: func() []llm.Message {
				msgs := []llm.Message{prompt}
				for i := 1; i <= 9; i++ {
					msgs = append(msgs, asst(llm.TextPart(fmt.Sprintf("Step %d.", i)), callPart(fmt.Sprintf("toolu_%d", i), "Bash", `{"command":"make"}`)))
				}
				return append(msgs, goOn)
			}(),
			check: func(t *testing.T, got []llm.Message) {
				a := answers(got)
				for i := 1; i <= 9; i++ {
					if a[fmt.Sprintf("toolu_%d", i)] != llm.LostResultText {
						t.Errorf("toolu_%d: answer %q", i, a[fmt.Sprintf("toolu_%d", i)])
					}
				}
			},
		},
		{
			name: "text before results, a duplicated result and an id Anthropic refuses",
			msgs: []llm.Message{prompt, asst(callPart("functions.Read:0", "Read", `{}`)),
				user(llm.TextPart("by the way"), resultPart("functions.Read:0", "A"), resultPart("functions.Read:0", "A again")), goOn},
			check: func(t *testing.T, got []llm.Message) {
				if ids := callIDs(got); !reflect.DeepEqual(ids, []string{"functions_Read_0"}) {
					t.Errorf("ids = %v", ids)
				}
				if p := got[2].Parts; len(p) != 3 || p[0].ToolResult == nil || p[0].ToolResult.CallID != "functions_Read_0" || p[1].Text != "by the way" {
					t.Errorf("user message = %+v, want the one result first, then the texts", p)
				}
			},
		},
		{
			name: "lost first line, empty and broken parts",
			msgs: []llm.Message{asst(llm.TextPart("Hello.")), asst(llm.TextPart("")), {Role: "system", Parts: []llm.Part{llm.TextPart("x")}},
				user(llm.Part{Type: llm.PartToolCall}, llm.Part{Type: "hologram", Text: "x"}, llm.Part{Type: llm.PartImage}), goOn},
			refusedBy: []string{"anthropic"},
			check: func(t *testing.T, got []llm.Message) {
				if got[0].Text() != llm.LostStartText || got[1].Text() != "Hello." || len(got) != 3 {
					t.Errorf("got %+v", got)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := llm.CheckHistory(tc.msgs); err == nil {
				t.Fatal("CheckHistory accepts the damaged history")
			}
			for _, c := range w.clients {
				if len(tc.refusedBy) > 0 && !contains(tc.refusedBy, c.name) {
					continue
				}
				if err := w.send(c, merge(tc.msgs)); err == nil {
					t.Errorf("%s accepts the damaged history: the rules are not checked", c.name)
				}
			}
			got := llm.RepairHistory(tc.msgs)
			if err := llm.CheckHistory(got); err != nil {
				t.Fatalf("repaired history: %v", err)
			}
			for _, c := range w.clients {
				if err := w.send(c, got); err != nil {
					t.Errorf("repaired: %v", err)
				}
			}
			tc.check(t, got)
		})
	}
}

// safe makes call inputs marshalable, as the session and the agent do,
// so that a client's failure to encode does not stand in for the check.
func safe(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.SafeMessage(m)
	}
	return out
}

// gen makes conversations the way the agent builds them, and damages them
// the ways a transcript and a model do.
type gen struct {
	r *rand.Rand
	n int
}

func (g *gen) id() string { g.n++; return fmt.Sprintf("toolu_%03d", g.n) }

// conversation returns a valid history that ends with the user.
func (g *gen) conversation() []llm.Message {
	msgs := []llm.Message{llm.UserText("prompt")}
	for round, rounds := 0, 1+g.r.IntN(6); round < rounds; round++ {
		a := asst()
		if g.r.IntN(4) == 0 {
			sig := ""
			if g.r.IntN(2) == 0 {
				sig = "sig"
			}
			a.Parts = append(a.Parts, llm.Part{Type: llm.PartThinking, Text: "thinking", Signature: sig})
		}
		if g.r.IntN(3) != 0 {
			a.Parts = append(a.Parts, llm.TextPart(fmt.Sprintf("answer %d", round)))
		}
		calls := g.r.IntN(4)
		if len(a.Parts) == 0 || (calls == 0 && a.Text() == "") {
			calls = max(calls, 1)
		}
		res := user()
		for range calls {
			id := g.id()
			a.Parts = append(a.Parts, callPart(id, "Read", fmt.Sprintf(`{"file_path":"f%s"}`, id)))
			r := resultPart(id, "contents of "+id)
			if g.r.IntN(6) == 0 {
				r.ToolResult.Content = append(r.ToolResult.Content, llm.Part{Type: llm.PartImage, MediaType: "image/png", Data: []byte("\x89PNG")})
			}
			r.ToolResult.IsError = g.r.IntN(5) == 0
			res.Parts = append(res.Parts, r)
		}
		msgs = append(msgs, a)
		if calls > 0 {
			msgs = append(msgs, res)
		} else {
			msgs = append(msgs, llm.UserText(fmt.Sprintf("prompt %d", round)))
		}
	}
	return msgs
}

// damage applies one random harm to msgs (which it may modify) and returns
// the result.
func (g *gen) damage(msgs []llm.Message) []llm.Message {
	if len(msgs) == 0 {
		return msgs
	}
	i := g.r.IntN(len(msgs))
	m := &msgs[i]
	pick := func(typ llm.PartType) int { // a part of m of that type, or -1
		var idx []int
		for j, p := range m.Parts {
			if p.Type == typ && (p.ToolCall != nil || p.ToolResult != nil) {
				idx = append(idx, j)
			}
		}
		if len(idx) == 0 {
			return -1
		}
		return idx[g.r.IntN(len(idx))]
	}
	setCall := func(j int, f func(c *llm.ToolCall)) {
		c := *m.Parts[j].ToolCall
		f(&c)
		m.Parts = append([]llm.Part(nil), m.Parts...)
		m.Parts[j].ToolCall = &c
	}
	setResultID := func(k int, from, to string) {
		if k >= len(msgs) {
			return
		}
		parts := append([]llm.Part(nil), msgs[k].Parts...)
		for j, p := range parts {
			if p.ToolResult != nil && p.ToolResult.CallID == from {
				r := *p.ToolResult
				r.CallID = to
				parts[j].ToolResult = &r
				break
			}
		}
		msgs[k].Parts = parts
	}
	switch g.r.IntN(16) {
	case 0, 1: // a skipped line
		return append(msgs[:i:i], msgs[i+1:]...)
	case 2: // a line written twice
		return append(msgs[:i+1:i+1], msgs[i:]...)
	case 3: // lines out of order
		if i+1 < len(msgs) {
			msgs[i], msgs[i+1] = msgs[i+1], msgs[i]
		}
	case 4: // input the model garbled or the limit cut
		if j := pick(llm.PartToolCall); j >= 0 {
			bad := []string{`{"file_path": "a.tx`, `not json`, ``, `{"a":1}}`}[g.r.IntN(4)]
			setCall(j, func(c *llm.ToolCall) { c.Input = json.RawMessage(bad) })
		}
	case 5: // the model reuses an earlier id; nova answered under it
		if j := pick(llm.PartToolCall); j >= 0 {
			ids := callIDs(msgs[:i+1])
			if len(ids) > 1 {
				to, from := ids[g.r.IntN(len(ids)-1)], m.Parts[j].ToolCall.ID
				setCall(j, func(c *llm.ToolCall) { c.ID = to })
				setResultID(i+1, from, to)
			}
		}
	case 6: // a result lost (a full disk)
		if j := pick(llm.PartToolResult); j >= 0 {
			m.Parts = append(m.Parts[:j:j], m.Parts[j+1:]...)
		}
	case 7: // every result message lost, the rest kept
		var out []llm.Message
		for _, m := range msgs {
			if len(m.Parts) == 0 || m.Parts[0].Type != llm.PartToolResult {
				out = append(out, m)
			}
		}
		return out
	case 8: // empty text, an empty message, an empty answer
		m.Parts = append(append([]llm.Part(nil), m.Parts...), llm.TextPart(""))
		if g.r.IntN(2) == 0 {
			return append(msgs[:i:i], append([]llm.Message{asst(llm.TextPart("")), user()}, msgs[i:]...)...)
		}
	case 9: // parts that lost their payload, or of a type nova does not know
		m.Parts = append(append([]llm.Part(nil), m.Parts...),
			[]llm.Part{{Type: llm.PartToolCall}, {Type: llm.PartToolResult}, {Type: "hologram", Text: "x"}, {Type: llm.PartImage}}[g.r.IntN(4)])
	case 10: // an id from a server Anthropic refuses
		if j := pick(llm.PartToolCall); j >= 0 {
			from := m.Parts[j].ToolCall.ID
			to := "functions.Read:" + from
			setCall(j, func(c *llm.ToolCall) { c.ID = to })
			setResultID(i+1, from, to)
		}
	case 11: // a result for a call that never was
		msgs = append(msgs[:i+1:i+1], append([]llm.Message{user(resultPart("toolu_ghost", "boo"))}, msgs[i+1:]...)...)
	case 12: // text ahead of the results
		if j := pick(llm.PartToolResult); j >= 0 {
			m.Parts = append([]llm.Part{llm.TextPart("note")}, m.Parts...)
		}
	case 13: // a role nova does not know
		msgs = append(msgs[:i:i], append([]llm.Message{{Role: "system", Parts: []llm.Part{llm.TextPart("sys")}}}, msgs[i:]...)...)
	case 14: // thinking alone, or in the wrong place
		msgs = append(msgs[:i:i], append([]llm.Message{asst(llm.Part{Type: llm.PartThinking, Text: "hmm", Signature: "s"})}, msgs[i:]...)...)
	case 15: // a result in the assistant's message
		if j := pick(llm.PartToolResult); j >= 0 && i > 0 {
			msgs[i-1].Parts = append(append([]llm.Part(nil), msgs[i-1].Parts...), m.Parts[j])
		}
	}
	return msgs
}

// deepCopy copies msgs down to the calls and results, so damage to one
// history never reaches another.
func deepCopy(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.Message{Role: m.Role, Parts: clone(m.Parts)}
		for j, p := range out[i].Parts {
			if p.ToolCall != nil {
				c := *p.ToolCall
				out[i].Parts[j].ToolCall = &c
			}
			if p.ToolResult != nil {
				r := *p.ToolResult
				r.Content = clone(r.Content)
				out[i].Parts[j].ToolResult = &r
			}
		}
	}
	return out
}

// TestRepairHistoryProperty damages generated conversations at random and
// holds every repaired history to the rules of every provider, on the
// wire. Unrepaired, enough of them break the rules that the check is seen
// to bite.
// merge joins consecutive messages of one role, as the agent does before
// it builds a request.
func merge(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Parts = append(clone(out[n-1].Parts), m.Parts...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// clone copies parts, keeping nil nil and empty empty.
func clone(parts []llm.Part) []llm.Part {
	if parts == nil {
		return nil
	}
	return append(make([]llm.Part, 0, len(parts)), parts...)
}

func TestRepairHistoryProperty(t *testing.T) {
	t.Parallel()
	cases := 300
	if testing.Short() {
		cases = 60
	}
	// The seeds are dealt to parallel shards, each with its own fake
	// provider: every seed still runs, on every core the machine has.
	const shards = 4
	refused := make([]map[string]int, shards)
	var names []string
	for _, c := range newWire(t).clients {
		names = append(names, c.name)
	}
	t.Run("seeds", func(t *testing.T) {
		for shard := range shards {
			refused[shard] = map[string]int{}
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				t.Parallel()
				w := newWire(t)
				for seed := shard; seed < cases; seed += shards {
					repairHistorySeed(t, w, seed, refused[shard])
				}
			})
		}
	})
	if t.Failed() {
		return // a shard stopped early: its counts are not the whole
	}
	for _, name := range names {
		n := 0
		for _, r := range refused {
			n += r[name]
		}
		t.Logf("%s: %d of %d damaged histories refused unrepaired", name, n, cases)
		if n < cases/4 {
			t.Errorf("%s: only %d of %d damaged histories were refused unrepaired: the damage or the check is too weak", name, n, cases)
		}
	}
}

// repairHistorySeed damages the history seed generates, repairs it, and
// sends it through every client of w; it counts in refused the clients
// that would refuse the damaged history unrepaired.
func repairHistorySeed(t *testing.T, w *wire, seed int, refused map[string]int) {
	t.Helper()
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 7))}
	valid := g.conversation()
	if err := llm.CheckHistory(valid); err != nil {
		t.Fatalf("seed %d: the generator made an invalid history: %v", seed, err)
	}
	damaged := deepCopy(valid)
	for range 1 + g.r.IntN(4) {
		damaged = g.damage(damaged)
	}
	damaged = append(damaged, llm.UserText("go on")) // what Run adds

	before := deepCopy(damaged)
	got := llm.RepairHistory(damaged)
	if !reflect.DeepEqual(damaged, before) {
		t.Fatalf("seed %d: RepairHistory modified its input", seed)
	}
	if err := llm.CheckHistory(got); err != nil {
		t.Fatalf("seed %d: repaired history: %v\n%s", seed, err, dump(got))
	}
	if again := llm.RepairHistory(got); !reflect.DeepEqual(again, got) {
		t.Fatalf("seed %d: repairing twice changes the history", seed)
	}
	for _, c := range w.clients {
		if err := w.send(c, got); err != nil {
			t.Fatalf("seed %d: repaired history refused: %v\n%s", seed, err, dump(got))
		}
		// Unrepaired, as the agent sent it before: roles merged.
		if merged := merge(safe(damaged)); llm.CheckHistory(merged) != nil && w.send(c, merged) != nil {
			refused[c.name]++
		}
	}
}

// TestRepairHistoryKeepsPrefix holds the repair to prompt caching: a valid
// history stays byte for byte the start of the repaired one, whatever
// damage follows it, and a valid history is returned as it is.
func TestRepairHistoryKeepsPrefix(t *testing.T) {
	for seed := range 300 {
		g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 11))}
		head := g.conversation()
		if got := llm.RepairHistory(head); &got[0] != &head[0] || len(got) != len(head) {
			t.Fatalf("seed %d: a valid history was not returned as it is", seed)
		}
		tail := append([]llm.Message{asst(llm.TextPart("next answer"))}, g.conversation()[1:]...)
		for range 1 + g.r.IntN(4) {
			tail = g.damage(tail)
		}
		if len(tail) == 0 || tail[0].Role != llm.RoleAssistant || tail[0].Text() == "" {
			continue // the damage took the tail's opening answer: no clean boundary
		}
		whole := append(deepCopy(head), tail...)
		got := llm.RepairHistory(append(whole, llm.UserText("go on")))
		if len(got) < len(head) || !reflect.DeepEqual(got[:len(head)], head) {
			t.Fatalf("seed %d: the valid head changed:\nhead:\n%s\ngot:\n%s", seed, dump(head), dump(got))
		}
	}
}

func dump(msgs []llm.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "%d %s:", i, m.Role)
		for _, p := range m.Parts {
			switch {
			case p.ToolCall != nil:
				fmt.Fprintf(&b, " call(%s %s)", p.ToolCall.ID, p.ToolCall.Input)
			case p.ToolResult != nil:
				fmt.Fprintf(&b, " result(%s)", p.ToolResult.CallID)
			default:
				fmt.Fprintf(&b, " %s(%.20q)", p.Type, p.Text)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestSafeInput(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:        `{"a":1}`,
		``:               `{}`,
		"  \n":           `{}`,
		`{"command": "l`: `"{\"command\": \"l"`,
		`[1,2]`:          `[1,2]`,
	} {
		got := llm.SafeInput(json.RawMessage(in))
		if string(got) != want {
			t.Errorf("SafeInput(%q) = %s, want %s", in, got, want)
		}
		if _, err := json.Marshal(llm.ToolCall{ID: "x", Name: "y", Input: got}); err != nil {
			t.Errorf("SafeInput(%q) does not marshal: %v", in, err)
		}
	}
}

func TestUniqueCallID(t *testing.T) {
	taken := map[string]bool{"toolu_1": true, "toolu_1_2": true}
	for in, want := range map[string]string{"toolu_1": "toolu_1_3", "toolu_9": "toolu_9", "": "call", "functions.Read:0": "functions_Read_0"} {
		if got := llm.UniqueCallID(in, taken); got != want {
			t.Errorf("UniqueCallID(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRepairHistory measures what every request pays: checking a long
// valid history (returned as it is), and repairing a damaged one.
func BenchmarkRepairHistory(b *testing.B) {
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	var long []llm.Message
	for len(long) < 2000 {
		long = append(long, g.conversation()...)
	}
	long = merge(long)
	if err := llm.CheckHistory(long); err != nil {
		b.Fatal(err)
	}
	damaged := deepCopy(long)
	for range 20 {
		damaged = g.damage(damaged)
	}
	b.Run("valid", func(b *testing.B) {
		for b.Loop() {
			llm.RepairHistory(long)
		}
	})
	b.Run("damaged", func(b *testing.B) {
		for b.Loop() {
			llm.RepairHistory(damaged)
		}
	})
}
