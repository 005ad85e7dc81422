// drive.mjs drives `nova acp` with the official ACP TypeScript SDK's
// client, as an editor would, and prints what it saw as one JSON object
// (cmd/nova/acp_e2e_test.go checks it). Usage:
//
//   node drive.mjs <nova> <workspace>
//
// The environment is nova's (NOVA_HOME, the fake provider's URL).
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [nova, workspace] = process.argv.slice(2);
const out = { first: {}, second: {} };

// The unsaved buffers the editor holds: Read must see these, not the disk.
const buffers = { [path.join(workspace, "notes.txt")]: "UNSAVED BUFFER TEXT\n" };

// start runs one nova acp and connects the SDK's client to it. Every line
// nova writes is kept (raw), so replies the SDK has no caller for (to the
// malformed lines this script writes past it) can be checked.
function start(record) {
  const child = spawn(nova, ["acp"], { cwd: workspace, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b) => (stderr += b));
  record.raw = [];
  let pending = "";
  child.stdout.on("data", (b) => {
    pending += b.toString();
    let i;
    while ((i = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      try {
        record.raw.push(JSON.parse(line));
      } catch {
        record.raw.push({ unparsable: line });
      }
    }
  });
  const toAgent = Writable.toWeb(child.stdin);
  const fromAgent = Readable.toWeb(child.stdout);
  const stream = acp.ndJsonStream(toAgent, fromAgent);
  record.updates = [];
  record.permissions = [];
  record.reads = [];
  const handlers = { onUpdate: () => {}, answer: () => "allow_once" };
  const app = acp
    .client({ name: "nova-test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      record.updates.push(params.update);
      handlers.onUpdate(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const optionId = handlers.answer(params);
      record.permissions.push({ toolCall: params.toolCall, options: params.options.map((o) => o.optionId), answered: optionId });
      return { outcome: { outcome: "selected", optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      record.reads.push(params.path);
      if (params.path in buffers) return { content: buffers[params.path] };
      return { content: await readFile(params.path, "utf8") };
    });
  return { child, stream, app, handlers, stderr: () => stderr };
}

async function first() {
  const r = out.first;
  const { child, stream, app, handlers, stderr } = start(r);
  try {
    await app.connectWith(stream, async (ctx) => {
      r.initialize = await ctx.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
      });
      const s = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
      r.session = s;
      const sessionId = s.sessionId;

      // A prompt that streams text, edits with a diff, and asks twice:
      // the first ask is allowed, the second rejected.
      let asked = 0;
      handlers.answer = () => (asked++ === 0 ? "allow_once" : "reject_once");
      r.edit = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "please edit greet.txt" }],
      });

      // Cancel mid-turn: once the slow answer has started to stream.
      let mark = r.updates.length;
      let cancelled = false;
      handlers.onUpdate = (p) => {
        if (!cancelled && p.update.sessionUpdate === "agent_message_chunk") {
          cancelled = true;
          ctx.notify(acp.methods.agent.session.cancel, { sessionId });
        }
      };
      r.cancel = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "tell me slowly" }],
      });
      r.cancelChunks = r.updates.slice(mark).filter((u) => u.sessionUpdate === "agent_message_chunk").length;
      handlers.onUpdate = () => {};

      // The mode, then a prompt that reads an unsaved buffer and writes
      // a file without asking (acceptEdits).
      r.setMode = await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "acceptEdits" });
      mark = r.permissions.length;
      r.buffer = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "read notes.txt" }],
      });
      r.asksInAcceptEdits = r.permissions.length - mark;

      // Malformed messages, past the SDK: each gets a JSON-RPC error and
      // the session goes on.
      child.stdin.write("this is not json\n");
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: "bad-1", method: "session/prompt", params: { sessionId: 42 } }) + "\n");
      try {
        await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "no-such-mode" });
        r.badMode = { error: null };
      } catch (e) {
        r.badMode = { error: { code: e.code, message: e.message } };
      }
      // The model, a config option of category "model": switched to
      // another model nova offers; the next prompt goes to it.
      const model = (s.configOptions || []).find((o) => o.category === "model");
      const other = model && model.options.find((o) => o.value !== model.currentValue && o.value.includes("haiku"));
      if (other) {
        r.setModel = await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: model.id, value: other.value });
      }
      try {
        await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "no-such-option", value: "x" });
        r.badOption = { error: null };
      } catch (e) {
        r.badOption = { error: { code: e.code, message: e.message } };
      }
      r.after = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "still there?" }],
      });
    });
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on("close", resolve));
    r.stderr = stderr();
  }
}

// second opens the session again in a new nova, as an editor does after
// a restart: session/load replays its history.
async function second() {
  const r = out.second;
  const { child, stream, app, stderr } = start(r);
  try {
    await app.connectWith(stream, async (ctx) => {
      r.initialize = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      r.list = await ctx.request(acp.methods.agent.session.list, { cwd: workspace });
      r.load = await ctx.request(acp.methods.agent.session.load, {
        sessionId: out.first.session.sessionId,
        cwd: workspace,
        mcpServers: [],
      });
    });
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on("close", resolve));
    r.stderr = stderr();
  }
}

try {
  await first();
  await second();
} catch (e) {
  out.error = String(e && e.stack ? e.stack : e);
}
process.stdout.write(JSON.stringify(out) + "\n");
