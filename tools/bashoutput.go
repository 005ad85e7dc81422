package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// BashOutput reads what a background shell wrote since the last read.
type BashOutput struct{ Input[bashOutputInput] }

type bashOutputInput struct {
	BashID string `json:"bash_id" jsonschema:"The ID of the background shell to retrieve output from"`
	Filter string `json:"filter,omitempty" jsonschema:"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."`
}

// Name implements Tool.
func (*BashOutput) Name() string { return "BashOutput" }

// Kind implements Tool.
func (*BashOutput) Kind() permission.Kind { return permission.KindRead }

// Description implements Tool.
func (*BashOutput) Description() string {
	return `Retrieves output from a running or completed background bash shell (started with Bash run_in_background).

- Takes the shell id (bash_id) that Bash returned.
- Returns only the output produced since the last BashOutput call for that shell, merged stdout and stderr, with the shell's status (running, completed, failed, killed) and exit code when it has ended.
- filter is an optional regular expression (RE2 syntax): only matching lines are returned; lines that do not match are discarded and will not be shown again.
- A shell keeps at most 1 MB of unread output; older unread output is dropped and the result says how much.`
}

// Run implements Tool.
func (*BashOutput) Run(_ context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in bashOutputInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid BashOutput input: %v", err), nil
	}
	var filter *regexp.Regexp
	if in.Filter != "" {
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return Errorf("invalid filter regular expression: %v", err), nil
		}
		filter = re
	}
	s, err := shellsOf(env).shell(in.BashID)
	if err != nil {
		return Errorf("%v", err), nil
	}
	text, dropped, disp := s.read(filter)
	var b strings.Builder
	fmt.Fprintf(&b, "Status: %s", disp.Status)
	if disp.ExitCode != nil {
		fmt.Fprintf(&b, " (exit code %d)", *disp.ExitCode)
	}
	b.WriteString("\n")
	if dropped > 0 {
		fmt.Fprintf(&b, "[%d bytes of earlier output were dropped: more than %d bytes were waiting to be read]\n", dropped, bgBufferCap)
	}
	if text == "" {
		b.WriteString("(no new output)")
	} else {
		b.WriteString(strings.TrimRight(text, "\n"))
	}
	return Result{Output: b.String(), Display: display.OfShell(disp)}, nil
}

// bgShell is a command started with run_in_background. Its output waits in
// a buffer until BashOutput reads it.
type bgShell struct {
	id, command, description, cwd string
	p                             *shellProc
	done                          chan struct{} // closed once the shell has ended and its output is in buf

	mu       sync.Mutex
	buf      []byte // unread output, at most bgBufferCap
	dropped  int    // unread bytes dropped since the last read
	status   string
	exitCode int
	killReq  bool
}

// Write takes output from the process, dropping the oldest unread bytes
// past bgBufferCap so a chatty server cannot exhaust memory.
func (s *bgShell) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(b)
	if n >= bgBufferCap {
		s.dropped += len(s.buf) + n - bgBufferCap
		s.buf = append(s.buf[:0], b[n-bgBufferCap:]...)
		return n, nil
	}
	if over := len(s.buf) + n - bgBufferCap; over > 0 {
		s.dropped += over
		s.buf = s.buf[:copy(s.buf, s.buf[over:])]
	}
	s.buf = append(s.buf, b...)
	return n, nil
}

// watch records how the shell ended once its process exits.
func (s *bgShell) watch() {
	<-s.p.exited
	s.p.finish()
	code := shellExitCode(s.p.state)
	s.mu.Lock()
	s.exitCode = code
	switch {
	case s.killReq:
		s.status = shellStatusKill
	case code == 0:
		s.status = shellStatusDone
	default:
		s.status = shellStatusFail
	}
	s.mu.Unlock()
	close(s.done)
}

// kill stops the shell's whole process group and waits until it has ended;
// it reports false when the shell was no longer running.
func (s *bgShell) kill() bool {
	s.mu.Lock()
	if s.status != shellStatusRun {
		s.mu.Unlock()
		return false
	}
	s.killReq = true
	s.mu.Unlock()
	s.p.kill()
	<-s.done
	return true
}

// read consumes the unread output and returns the lines filter matches
// (all of it without a filter), the bytes dropped since the last read and
// the shell's state.
func (s *bgShell) read(filter *regexp.Regexp) (string, int, display.Shell) {
	s.mu.Lock()
	data := s.buf
	if filter != nil && s.status == shellStatusRun {
		// A line still being written waits for the next read, so the
		// filter sees it whole.
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	text := string(data)
	s.buf = s.buf[:copy(s.buf, s.buf[len(data):])]
	dropped := s.dropped
	s.dropped = 0
	disp := s.displayLocked()
	s.mu.Unlock()

	if filter != nil {
		var kept []string
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if filter.MatchString(line) {
				kept = append(kept, line)
			}
		}
		text = strings.Join(kept, "\n")
	}
	return text, dropped, disp
}

// display returns the shell's state for frontends.
func (s *bgShell) display() display.Shell {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.displayLocked()
}

func (s *bgShell) displayLocked() display.Shell {
	d := display.Shell{ID: s.id, Command: s.command, Description: s.description, Status: s.status}
	if s.status != shellStatusRun {
		code := s.exitCode
		d.ExitCode = &code
	}
	return d
}
