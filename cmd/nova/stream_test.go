package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// streamed is print mode's stream-json output (Claude Code's messages),
// decoded for the end-to-end tests.
type streamed struct {
	lines  []map[string]any
	init   map[string]any // the first line: system/init
	result map[string]any // the last line
	// toolUses and toolResults count the tool_use blocks of assistant
	// messages and the tool_result blocks of user messages, by call id.
	toolUses, toolResults map[string]int
	// meta is nova's nova_tool_result message of each call.
	meta map[string]toolMeta
	// text is the assistant messages' text, in order.
	text string
	// kinds counts the messages by type, or type/subtype for system ones.
	kinds map[string]int
}

type toolMeta struct {
	Name     string `json:"tool_name"`
	Denied   bool   `json:"denied"`
	IsError  bool   `json:"is_error"`
	Spill    string `json:"spill_path"`
	Decision struct {
		Behavior, Layer, Reason string
	} `json:"decision"`
}

func parseStream(t *testing.T, stdout string) streamed {
	t.Helper()
	s := streamed{toolUses: map[string]int{}, toolResults: map[string]int{}, meta: map[string]toolMeta{}, kinds: map[string]int{}}
	var text strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a stream-json line is not JSON (%v): %q", err, l)
		}
		s.lines = append(s.lines, m)
		kind, _ := m["type"].(string)
		if kind == "system" {
			kind += "/" + m["subtype"].(string)
		}
		s.kinds[kind]++
		switch kind {
		case "assistant", "user":
			msg, _ := m["message"].(map[string]any)
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				b := b.(map[string]any)
				switch b["type"] {
				case "text":
					text.WriteString(b["text"].(string))
				case "tool_use":
					s.toolUses[b["id"].(string)]++
				case "tool_result":
					s.toolResults[b["tool_use_id"].(string)]++
				}
			}
		case "system/nova_tool_result":
			var tm toolMeta
			_ = json.Unmarshal([]byte(l), &tm)
			s.meta[m["tool_use_id"].(string)] = tm
		}
	}
	s.text = text.String()
	if len(s.lines) > 0 {
		s.init, s.result = s.lines[0], s.lines[len(s.lines)-1]
	}
	if s.init["type"] != "system" || s.init["subtype"] != "init" {
		t.Errorf("the first stream-json line is not system/init: %v", s.init)
	}
	if s.result["type"] != "result" {
		t.Errorf("the last stream-json line is not the result: %v", s.result)
	}
	return s
}
