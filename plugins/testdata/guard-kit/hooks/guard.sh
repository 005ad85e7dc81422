#!/bin/sh
# guard-kit's PreToolUse guard: a Bash command that names "forbidden" is
# blocked (exit 2, the reason on stderr); everything else goes on.
input=$(cat)
if [ -n "$GUARD_LOG" ]; then
	printf 'root=%s\n' "$CLAUDE_PLUGIN_ROOT" >>"$GUARD_LOG"
fi
case "$input" in
*forbidden*)
	echo "guard-kit blocks forbidden commands" >&2
	exit 2
	;;
esac
exit 0
