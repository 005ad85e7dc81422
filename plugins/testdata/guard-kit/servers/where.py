#!/usr/bin/env python3
"""A minimal MCP stdio server (nova's plugin fixture): one tool, "where",
that says which plugin root its environment names."""
import json
import os
import sys


def reply(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue  # a notification
    if method == "initialize":
        reply(msg_id, {
            "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "where", "version": "1.0.0"},
        })
    elif method == "tools/list":
        reply(msg_id, {"tools": [{
            "name": "where",
            "description": "Says where the plugin is installed.",
            "inputSchema": {"type": "object", "properties": {}},
        }]})
    elif method == "tools/call":
        text = "root=%s arg=%s" % (os.environ.get("CLAUDE_PLUGIN_ROOT", ""), os.environ.get("WHERE_ROOT", ""))
        reply(msg_id, {"content": [{"type": "text", "text": text}]})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "no method " + str(method)}}) + "\n")
        sys.stdout.flush()
