package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func TestGarbledToolInputIsSaved(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/ws")
	garbled := `{"command": "ls -la /tm`
	mustAppend(t, s, llm.UserText("list it"), assistantCall("toolu_1", "Bash", garbled), toolResult("toolu_1", "Bash", "not run", true))
	s.Close()

	tr, warns, err := st.Load(s.ID())
	if err != nil || len(warns) > 0 {
		t.Fatalf("Load: %v %v", err, warns)
	}
	msgs := tr.AllMessages()
	if len(msgs) != 3 {
		t.Fatalf("saved %v, want the prompt, the call and its result", texts(msgs))
	}
	var text string
	if err := json.Unmarshal(msgs[1].ToolCalls()[0].Input, &text); err != nil || text != garbled {
		t.Errorf("saved input = %s, want the model's text as a JSON string", msgs[1].ToolCalls()[0].Input)
	}
	hist := llm.RepairHistory(append(tr.Messages(), llm.UserText("go on")))
	if err := llm.CheckHistory(hist); err != nil {
		t.Errorf("the resumed history is not one the providers accept: %v", err)
	}
	if got := texts(hist); !reflect.DeepEqual(got, []string{"user:list it", "assistant:Let me look.+call:toolu_1", "user:go onresult:toolu_1"}) {
		t.Errorf("resumed history = %q, want the call and its result kept", got)
	}
}

// TestHelperFullDisk is not a test: it is a nova process whose disk fills
// up (a file size limit, so the kernel fails the writes) in the tests
// below, run by re-executing the test binary. It prints what each append
// returned.
func TestHelperFullDisk(t *testing.T) {
	t.Parallel()
	mode := os.Getenv("NOVA_FULLDISK_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	st := NewStore(os.Getenv("NOVA_HOME"))
	s, _, err := st.Open(os.Getenv("NOVA_SESSION_ID"))
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	fi, err := os.Stat(filepath.Join(s.Dir(), transcriptFile))
	if err != nil {
		fmt.Println("stat:", err)
		os.Exit(1)
	}
	var free syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &free); err != nil {
		fmt.Println("getrlimit:", err)
		os.Exit(1)
	}
	// Room for the small call, not for its large result.
	full := syscall.Rlimit{Cur: uint64(fi.Size()) + 1024, Max: free.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	report := func(what string, err error) {
		if err != nil {
			fmt.Printf("%s: error: %v\n", what, err)
		} else {
			fmt.Printf("%s: ok\n", what)
		}
	}
	report("call 1", s.AppendMessage(assistantCall("toolu_1", "Bash", `{"command":"make"}`)))
	report("result 1", s.AppendMessage(toolResult("toolu_1", "Bash", strings.Repeat("x", 8000), false)))
	report("decision 2", s.AppendDecision("toolu_2", "Bash", allow()))
	report("call 2", s.AppendMessage(assistantCall("toolu_2", "Bash", `{"command":"make test"}`)))
	if mode == "freed" {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &free); err != nil {
			fmt.Println("setrlimit:", err)
			os.Exit(1)
		}
		report("result 2", s.AppendMessage(toolResult("toolu_2", "Bash", "PASS", false)))
	}
	report("close", s.Close())
	os.Exit(0)
}

func fullDisk(t *testing.T, mode string) (*Store, string, string) {
	t.Helper()
	st := newStore(t)
	s := create(t, st, "/ws")
	mustAppend(t, s, llm.UserText("build it"))
	s.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFullDisk$")
	cmd.Env = append(os.Environ(), "NOVA_FULLDISK_HELPER="+mode, "NOVA_HOME="+filepath.Dir(st.root), "NOVA_SESSION_ID="+s.ID())
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s%s", err, out, errOut.String())
	}
	return st, s.ID(), string(out)
}

// TestFullDiskKeepsOrder fills the disk under a session: the large result
// of a call cannot be written. Nothing after it is written either (a call
// never lands on disk without the result before it), and once the disk has
// room again everything is written, in order.
func TestFullDiskKeepsOrder(t *testing.T) {
	t.Parallel()
	st, id, out := fullDisk(t, "freed")
	for _, want := range []string{"call 1: ok", "result 1: error:", "no space or too large", "decision 2: error:", "call 2: error:", "result 2: ok", "close: ok"} {
		if want == "no space or too large" {
			if !strings.Contains(out, "file too large") && !strings.Contains(out, "no space left") {
				t.Errorf("the failure is not the kernel's:\n%s", out)
			}
			continue
		}
		if !strings.Contains(out, want) {
			t.Errorf("helper output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "not saved yet") {
		t.Errorf("the error does not say the record waits:\n%s", out)
	}
	tr, warns, err := st.Load(id)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Load: %v %v", err, warns)
	}
	want := []string{"user:build it", "assistant:Let me look.+call:toolu_1", "user:result:toolu_1", "assistant:Let me look.+call:toolu_2", "user:result:toolu_2"}
	if got := texts(tr.AllMessages()); !reflect.DeepEqual(got, want) {
		t.Errorf("transcript after the disk had room again:\n got %q\nwant %q", got, want)
	}
	var decisions int
	for _, r := range tr.Records {
		if r.Type == RecordDecision {
			decisions++
		}
	}
	if decisions != 1 || tr.Meta.MessageCount != 5 {
		t.Errorf("decisions %d, meta %+v", decisions, tr.Meta)
	}
}

// TestFullDiskLeavesPrefix is the disk that stays full until nova exits:
// the transcript ends cleanly before the lost result, Close says how much
// was lost, and the resumed history is one the providers accept.
func TestFullDiskLeavesPrefix(t *testing.T) {
	t.Parallel()
	st, id, out := fullDisk(t, "full")
	if !strings.Contains(out, "close: error:") || !strings.Contains(out, "3 records could not be saved") {
		t.Errorf("Close does not report the loss:\n%s", out)
	}
	s, warns, err := st.Open(id)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Open: %v %v", err, warns)
	}
	defer s.Close()
	want := []string{"user:build it", "assistant:Let me look.+call:toolu_1"}
	if got := texts(s.AllMessages()); !reflect.DeepEqual(got, want) {
		t.Errorf("transcript = %q, want %q (no hole, nothing after the lost result)", got, want)
	}
	hist := llm.RepairHistory(append(s.Messages(), llm.UserText("go on")))
	if err := llm.CheckHistory(hist); err != nil {
		t.Errorf("resumed history: %v", err)
	}
	// The session goes on where the file ends.
	mustAppend(t, s, llm.UserText("go on"))
}

// TestDamagedToolLinesResume damages a transcript of tool calls line by
// line, as a disk or an editor might, and checks that what a resumed
// session sends is a history every provider accepts, with the damage
// explained to the model rather than hidden.
func TestDamagedToolLinesResume(t *testing.T) {
	t.Parallel()
	// Lines: 1 header, 2 prompt, 3 call a, 4 decision, 5 result a,
	// 6 call b + c, 7 results b + c, 8 answer.
	write := func(t *testing.T) (*Store, string, [][]byte) {
		st := newStore(t)
		s := create(t, st, "/ws")
		mustAppend(t, s, llm.UserText("fix the build"), assistantCall("toolu_a", "Read", `{"file_path":"go.mod"}`))
		if err := s.AppendDecision("toolu_a", "Read", allow()); err != nil {
			t.Fatal(err)
		}
		two := assistantCall("toolu_b", "Bash", `{"command":"go build"}`)
		two.Parts = append(two.Parts, llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_c", Name: "Bash", Input: json.RawMessage(`{"command":"go vet"}`)}})
		results := toolResult("toolu_b", "Bash", "ok", false)
		results.Parts = append(results.Parts, toolResult("toolu_c", "Bash", "vet ok", false).Parts...)
		mustAppend(t, s, toolResult("toolu_a", "Read", "module x", false), two, results, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("Fixed.")}})
		s.Close()
		data, err := os.ReadFile(filepath.Join(st.Dir(s.ID()), transcriptFile))
		if err != nil {
			t.Fatal(err)
		}
		return st, s.ID(), bytes.SplitAfter(data, []byte("\n"))
	}
	tests := []struct {
		name   string
		damage func(lines [][]byte) [][]byte
		// lost are the calls the model is told lost their results.
		lost []string
	}{
		{"the result line is garbled", func(l [][]byte) [][]byte { l[4] = []byte("{\"v\":1,\"type\":\"mess\x00age\n"); return l }, []string{"toolu_a"}},
		{"the call line is garbled", func(l [][]byte) [][]byte { l[2] = []byte("garbage\n"); return l }, nil},
		{"a line is written twice", func(l [][]byte) [][]byte { return append(l[:6:6], l[5:]...) }, []string{"toolu_b_2", "toolu_c_2"}},
		{"two lines change places", func(l [][]byte) [][]byte { l[5], l[6] = l[6], l[5]; return l }, []string{"toolu_b", "toolu_c"}},
		{"the results of several calls are lost", func(l [][]byte) [][]byte { return append(l[:4:4], l[5], l[7]) }, []string{"toolu_a", "toolu_b", "toolu_c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, id, lines := write(t)
			if len(lines) != 9 || len(lines[8]) != 0 {
				t.Fatalf("transcript has %d lines, the test expects 8", len(lines)-1)
			}
			if err := os.WriteFile(filepath.Join(st.Dir(id), transcriptFile), bytes.Join(tc.damage(lines), nil), 0o600); err != nil {
				t.Fatal(err)
			}
			s, _, err := st.Open(id)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			hist := llm.RepairHistory(append(s.Messages(), llm.UserText("go on")))
			if err := llm.CheckHistory(hist); err != nil {
				t.Fatalf("resumed history: %v\n%q", err, texts(hist))
			}
			var lost []string
			for _, m := range hist {
				for _, p := range m.Parts {
					if p.ToolResult != nil && len(p.ToolResult.Content) == 1 && p.ToolResult.Content[0].Text == llm.LostResultText {
						lost = append(lost, p.ToolResult.CallID)
					}
				}
			}
			if !reflect.DeepEqual(lost, tc.lost) {
				t.Errorf("calls told their result was lost: %v, want %v\n%q", lost, tc.lost, texts(hist))
			}
			if last := hist[len(hist)-1]; last.Text() != "go on" {
				t.Errorf("the history ends with %q, want the new prompt", last.Text())
			}
		})
	}
}

// TestDamagedTranscriptProperty writes sessions of tool calls, damages
// their transcripts at random the ways disks and editors do (lines lost,
// written twice, out of order, bytes flipped, a line cut short), and holds
// what a resumed session would send to the rules of every provider.
func TestDamagedTranscriptProperty(t *testing.T) {
	t.Parallel()
	for seed := range 100 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		st := newStore(t)
		s := create(t, st, "/ws")
		mustAppend(t, s, llm.UserText("start"))
		n := 0
		for round := range 1 + r.IntN(6) {
			a := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart(fmt.Sprintf("round %d", round))}}
			res := llm.Message{Role: llm.RoleUser}
			for range r.IntN(4) {
				n++
				id := fmt.Sprintf("toolu_%d", n)
				if r.IntN(8) == 0 && n > 1 {
					id = fmt.Sprintf("toolu_%d", 1+r.IntN(n-1)) // the model reuses an id
				}
				in := `{"n":1}`
				if r.IntN(8) == 0 {
					in = `{"content": "cut of` // the output limit cut it
				}
				a.Parts = append(a.Parts, llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "Bash", Input: json.RawMessage(in)}})
				res.Parts = append(res.Parts, toolResult(id, "Bash", "out", false).Parts...)
			}
			mustAppend(t, s, a)
			if len(res.Parts) > 0 {
				if err := s.AppendDecision("toolu_x", "Bash", allow()); err != nil {
					t.Fatal(err)
				}
				mustAppend(t, s, res)
			} else {
				mustAppend(t, s, llm.UserText("next"))
			}
		}
		s.Close()
		path := filepath.Join(st.Dir(s.ID()), transcriptFile)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		lines = lines[:len(lines)-1] // the empty remainder after the last newline
		for range 1 + r.IntN(4) {
			i := r.IntN(len(lines))
			switch r.IntN(5) {
			case 0:
				lines = append(lines[:i:i], lines[i+1:]...)
			case 1:
				lines = append(lines[:i+1:i+1], lines[i:]...)
			case 2:
				j := r.IntN(len(lines))
				lines[i], lines[j] = lines[j], lines[i]
			case 3:
				if l := append([]byte(nil), lines[i]...); len(l) > 1 {
					l[r.IntN(len(l)-1)] ^= 0x5a
					lines[i] = l
				}
			case 4:
				l := lines[i]
				lines[i] = append(append([]byte(nil), l[:r.IntN(len(l))]...), '\n')
			}
			if len(lines) == 0 {
				lines = [][]byte{[]byte("\n")}
			}
		}
		if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
			t.Fatal(err)
		}
		s2, warns, err := st.Open(s.ID())
		if err != nil {
			t.Fatalf("seed %d: Open: %v", seed, err)
		}
		hist := llm.RepairHistory(append(s2.Messages(), llm.UserText("go on")))
		if err := llm.CheckHistory(hist); err != nil {
			t.Fatalf("seed %d: resumed history: %v (warnings %v)\n%q", seed, err, warns, texts(hist))
		}
		if _, err := json.Marshal(hist); err != nil {
			t.Fatalf("seed %d: the resumed history does not encode: %v", seed, err)
		}
		s2.Close()
	}
}
