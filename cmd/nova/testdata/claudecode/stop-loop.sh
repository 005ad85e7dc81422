#!/bin/bash
# A Stop hook in the manner of the ralph-wiggum plugin's (written for
# nova's tests, not copied): it takes the last assistant message's text
# from transcript_path as that hook does (grep the compact
# "role":"assistant" lines, jq the text blocks) and sends the model back
# until the text holds <promise>DONE</promise>.
set -euo pipefail
HOOK_INPUT=$(cat)
TRANSCRIPT_PATH=$(echo "$HOOK_INPUT" | jq -r '.transcript_path')
LAST_LINE=$(grep '"role":"assistant"' "$TRANSCRIPT_PATH" | tail -1)
LAST_OUTPUT=$(echo "$LAST_LINE" | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")')
echo "$LAST_OUTPUT" >> "$CLAUDE_PROJECT_DIR/seen.txt"
if [[ "$LAST_OUTPUT" == *"<promise>DONE</promise>"* ]]; then
  exit 0
fi
jq -n --arg prompt "Keep going until the tests pass." '{"decision": "block", "reason": $prompt}'
