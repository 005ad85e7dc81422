package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestSDKSetModeThroughController: the SDK protocol's
// set_permission_mode is live.Controller.SetMode, the mode setter of
// every frontend: bypassPermissions needs the session to allow it, and a
// settings file's disableBypassPermissionsMode refuses it even then
// (Runtime.CanBypass), while another mode switches.
func TestSDKSetModeThroughController(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "unused"})
	control := func(id, mode string) string {
		return `{"type":"control_request","request_id":"` + id + `","request":{"subtype":"set_permission_mode","mode":"` + mode + `"}}` + "\n"
	}
	responses := func(stdout string) map[string]string {
		out := map[string]string{}
		for _, line := range strings.Split(stdout, "\n") {
			var m struct {
				Type     string `json:"type"`
				Response struct {
					Subtype   string `json:"subtype"`
					RequestID string `json:"request_id"`
					Error     string `json:"error"`
				} `json:"response"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.Type == "control_response" {
				out[m.Response.RequestID] = m.Response.Subtype + " " + m.Response.Error
			}
		}
		return out
	}
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--no-sandbox"}

	r := e.run(control("edits", "acceptEdits")+control("bypass", "bypassPermissions"), args...)
	got := responses(r.stdout)
	if got["edits"] != "success " {
		t.Fatalf("acceptEdits: %q (exit %d, stderr %s, stdout %s)", got["edits"], r.code, r.stderr, r.stdout)
	}
	if !strings.HasPrefix(got["bypass"], "error ") || !strings.Contains(got["bypass"], "--allow-dangerously-skip-permissions") {
		t.Errorf("bypassPermissions in a session not allowed it: %q", got["bypass"])
	}

	allowed := append(args, "--allow-dangerously-skip-permissions")
	r = e.run(control("bypass", "bypassPermissions"), allowed...)
	control1 := responses(r.stdout)["bypass"]
	// As root without the sandbox it is refused for another reason
	// (permission.CheckStartup): the control is that it is not this one.
	if (os.Geteuid() != 0 && control1 != "success ") || strings.Contains(control1, "disableBypassPermissionsMode") {
		t.Fatalf("control: bypassPermissions allowed: %q", control1)
	}
	e.write(".claude/settings.json", `{"permissions": {"disableBypassPermissionsMode": "disable"}}`)
	r = e.run(control("bypass", "bypassPermissions")+control("plan", "plan"), allowed...)
	got = responses(r.stdout)
	if !strings.HasPrefix(got["bypass"], "error ") || !strings.Contains(got["bypass"], "disableBypassPermissionsMode") {
		t.Errorf("bypassPermissions under disableBypassPermissionsMode: %q", got["bypass"])
	}
	if got["plan"] != "success " {
		t.Errorf("plan after the refusal: %q", got["plan"])
	}
}
