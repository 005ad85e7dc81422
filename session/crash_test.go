package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// writeSession makes a closed session holding n user messages "m0".."m<n-1>"
// and returns its id and transcript path.
func writeSession(t *testing.T, st *Store, n int) (string, string) {
	t.Helper()
	s := create(t, st, "/ws")
	for i := range n {
		mustAppend(t, s, llm.UserText(fmt.Sprintf("m%d", i)))
	}
	s.Close()
	return s.ID(), filepath.Join(st.Dir(s.ID()), transcriptFile)
}

func TestDamagedTranscriptLoads(t *testing.T) {
	t.Parallel()
	// Each case damages a transcript of 4 messages (lines 2..5 after the
	// header) and says which messages must survive.
	tests := []struct {
		name     string
		damage   func(data []byte) []byte
		want     []string
		warnLine int
		warnText string
	}{
		{"torn last line", func(d []byte) []byte {
			return d[:len(d)-15] // cut inside the last record
		}, []string{"m0", "m1", "m2"}, 5, "incomplete last record"},
		{"torn last line that parses", func(d []byte) []byte {
			return d[:len(d)-1] // only the newline is missing
		}, []string{"m0", "m1", "m2"}, 5, "incomplete last record"},
		{"garbage middle line", func(d []byte) []byte {
			lines := bytes.SplitAfter(d, []byte("\n"))
			lines[2] = []byte("{\"v\":1,\"type\":\"mess\x00\xffage\n")
			return bytes.Join(lines, nil)
		}, []string{"m0", "m2", "m3"}, 3, "unreadable record"},
		{"record from a newer nova", func(d []byte) []byte {
			lines := bytes.SplitAfter(d, []byte("\n"))
			lines[3] = bytes.Replace(lines[3], []byte(`"v":1`), []byte(`"v":99`), 1)
			return bytes.Join(lines, nil)
		}, []string{"m0", "m1", "m3"}, 4, "newer nova"},
		{"unknown record type", func(d []byte) []byte {
			return append(d, []byte(`{"v":1,"type":"hologram","ts":"2026-01-01T00:00:00Z"}`+"\n")...)
		}, []string{"m0", "m1", "m2", "m3"}, 6, "unknown type"},
		{"lost header line", func(d []byte) []byte {
			return append([]byte("garbage\n"), d[bytes.IndexByte(d, '\n')+1:]...)
		}, []string{"m0", "m1", "m2", "m3"}, 1, "unreadable record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			id, path := writeSession(t, st, 4)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.damage(data), 0o600); err != nil {
				t.Fatal(err)
			}
			check := func(what string, tr *Transcript, warns []Warning) {
				t.Helper()
				if len(warns) != 1 || warns[0].Line != tc.warnLine || !strings.Contains(warns[0].String(), tc.warnText) {
					t.Errorf("%s: warnings = %v, want one on line %d containing %q", what, warns, tc.warnLine, tc.warnText)
				}
				var got []string
				for _, m := range tr.AllMessages() {
					got = append(got, m.Text())
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: messages = %q, want %q", what, got, tc.want)
				}
				if tr.Meta.MessageCount != len(tc.want) || tr.Meta.WorkspaceDir != "/ws" {
					t.Errorf("%s: meta = %+v", what, tr.Meta)
				}
			}
			tr, warns, err := st.Load(id)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			check("Load", tr, warns)

			s, warns, err := st.Open(id)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			check("Open", s.Transcript(), warns)
			// The session goes on after the damage: a new record lands on
			// a line of its own and reloads.
			mustAppend(t, s, llm.UserText("after"))
			s.Close()
			tr, warns, err = st.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(tr.AllMessages()); n != len(tc.want)+1 || tr.AllMessages()[n-1].Text() != "after" {
				t.Errorf("after appending: messages = %v (warnings %v)", texts(tr.AllMessages()), warns)
			}
		})
	}
}

func TestLostMeta(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := writeSession(t, st, 3)
	metaPath := filepath.Join(st.Dir(id), metaFile)
	if err := os.Remove(metaPath); err != nil { // as if a crash came before it was written
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		metas, err := st.List(Filter{Workspace: "/ws"})
		if err != nil || len(metas) != 1 || metas[0].ID != id || metas[0].MessageCount != 3 {
			t.Errorf("List %s = %+v, %v; want the session with 3 messages", when, metas, err)
		}
	}
	check("without meta.json") // read from the transcript instead
	if _, err := os.Stat(metaPath); err == nil {
		t.Error("List wrote meta.json; it should only read")
	}
	if err := os.WriteFile(metaPath, []byte("{\"id\":"), 0o600); err != nil { // torn
		t.Fatal(err)
	}
	check("with a torn meta.json")
	s, _, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if m, err := readMeta(metaPath); err != nil || m.MessageCount != 3 {
		t.Errorf("meta.json after Open = %+v, %v; want it rebuilt", m, err)
	}
	check("after Open")
}

// TestHelperProcess is not a test: it is the other nova process of the
// tests below, run by re-executing the test binary.
func TestHelperProcess(t *testing.T) {
	t.Parallel()
	mode := os.Getenv("NOVA_SESSION_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	st := NewStore(os.Getenv("NOVA_HOME"))
	s, _, err := st.Open(os.Getenv("NOVA_SESSION_ID"))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	switch mode {
	case "hold": // keep the session open until stdin closes
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
	case "append": // append until killed, acknowledging each message
		for i := 0; ; i++ {
			if err := s.AppendMessage(llm.UserText(strings.Repeat("x", 3000) + strconv.Itoa(i))); err != nil {
				fmt.Println("error:", err)
				os.Exit(1)
			}
			fmt.Println(i)
		}
	}
	s.Close()
	os.Exit(0)
}

// helper starts TestHelperProcess in mode on session id, with the store's
// home as its NOVA_HOME.
func helper(t *testing.T, st *Store, id, mode string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "NOVA_SESSION_HELPER="+mode, "NOVA_HOME="+filepath.Dir(st.root), "NOVA_SESSION_ID="+id)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, stdin, bufio.NewScanner(stdout)
}

func TestLockRefusesAnotherProcess(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := writeSession(t, st, 1)
	cmd, stdin, out := helper(t, st, id, "hold")
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("helper did not open the session: %q", out.Text())
	}
	_, _, err := st.Open(id)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Fatalf("Open while another process holds it: err = %v, want *LockedError with pid %d", err, cmd.Process.Pid)
	}
	want := fmt.Sprintf("session %s is open in another nova process (pid %d)", id, cmd.Process.Pid)
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if err := st.Delete(id); !errors.As(err, &le) {
		t.Errorf("Delete while another process holds it: err = %v, want *LockedError", err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	s, _, err := st.Open(id)
	if err != nil {
		t.Fatalf("Open after the other process closed it: %v", err)
	}
	s.Close()
}

func TestKilledWriterLeavesLoadableTranscript(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := writeSession(t, st, 0)
	cmd, _, out := helper(t, st, id, "append")
	acked := -1
	for acked < 30 && out.Scan() {
		n, err := strconv.Atoi(out.Text())
		if err != nil {
			t.Fatalf("helper: %s", out.Text())
		}
		acked = n
	}
	// SIGKILL while it is still writing: no chance to clean up.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	s, warns, err := st.Open(id)
	if err != nil {
		t.Fatalf("Open after kill: %v", err)
	}
	defer s.Close()
	if len(warns) > 1 {
		t.Errorf("warnings = %v, want at most one (a torn last line)", warns)
	}
	msgs := s.AllMessages()
	if len(msgs) < acked+1 {
		t.Fatalf("loaded %d messages, but %d were acknowledged", len(msgs), acked+1)
	}
	for i, m := range msgs {
		if !strings.HasSuffix(m.Text(), "x"+strconv.Itoa(i)) {
			t.Fatalf("message %d is ...%q: lost or out of order", i, m.Text()[max(0, len(m.Text())-8):])
		}
	}
	if s.Meta().MessageCount != len(msgs) {
		t.Errorf("meta says %d messages, transcript has %d", s.Meta().MessageCount, len(msgs))
	}
}
