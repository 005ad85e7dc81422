// Drives nova (or any Claude Code compatible executable) with the Claude
// Agent SDK's own client, one scenario per run, and prints what happened
// as JSON lines for headless's conformance test to check:
//
//   {"kind":"message","query":N,"msg":<every SDKMessage the SDK yields>}
//   {"kind":"canUseTool","tool":...,"input":...,"toolUseID":...}
//   {"kind":"hook","event":...,"tool":...,"toolUseID":...}
//   {"kind":"control","name":"interrupt"|"setPermissionMode"|"setModel"|...,"response":...}
//   {"kind":"error","query":N,"error":"..."}
//   {"kind":"end"}
//
// node drive.mjs <scenario>, with EXECUTABLE (the nova binary) and WS (the
// working directory) in the environment; the rest of the environment is
// the executable's.
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';

const exe = process.env.EXECUTABLE;
const ws = process.env.WS;
if (!exe || !ws) {
  console.error('drive.mjs: set EXECUTABLE and WS');
  process.exit(2);
}

function out(v) {
  process.stdout.write(JSON.stringify(v) + '\n');
}

function opts(extra = {}) {
  return { pathToClaudeCodeExecutable: exe, cwd: ws, env: { ...process.env }, ...extra };
}

function userMessage(text) {
  return { type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: text } };
}

// run drains q, printing every message; it returns the messages.
async function run(q, n, onMessage) {
  const msgs = [];
  try {
    for await (const m of q) {
      out({ kind: 'message', query: n, msg: m });
      msgs.push(m);
      if (onMessage) await onMessage(m);
    }
  } catch (e) {
    out({ kind: 'error', query: n, error: String(e && e.message ? e.message : e) });
  }
  return msgs;
}

// inbox is an async iterable of user messages fed by push, ended by end.
function inbox() {
  const queue = [];
  let wake = null;
  let ended = false;
  return {
    push(m) {
      queue.push(m);
      if (wake) wake();
    },
    end() {
      ended = true;
      if (wake) wake();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift();
          continue;
        }
        if (ended) return;
        await new Promise((r) => (wake = r));
        wake = null;
      }
    },
  };
}

const scenarios = {
  // A plain text turn.
  async text() {
    await run(query({ prompt: 'say hello', options: opts() }), 1);
  },

  // A turn whose model reads a file first.
  async tool() {
    await run(query({ prompt: 'what does greet.txt say?', options: opts() }), 1);
  },

  // canUseTool allows a Bash call with a replaced command and denies a
  // Write.
  async permissions() {
    const canUseTool = async (tool, input, o) => {
      out({ kind: 'canUseTool', tool, input, toolUseID: o.toolUseID });
      if (tool === 'Bash') {
        return { behavior: 'allow', updatedInput: { ...input, command: 'touch two.txt' } };
      }
      return { behavior: 'deny', message: 'no writing today' };
    };
    await run(query({ prompt: 'make the files', options: opts({ canUseTool }) }), 1);
  },

  // Two user turns in one streaming session: the second is sent only once
  // the first has its result.
  async streaming() {
    const box = inbox();
    box.push(userMessage('first question'));
    let results = 0;
    await run(query({ prompt: box, options: opts() }), 1, (m) => {
      if (m.type !== 'result') return;
      results++;
      if (results === 1) box.push(userMessage('second question'));
      else box.end();
    });
  },

  // Two user messages sent at once: the second waits in the queue.
  async queued() {
    const box = inbox();
    box.push(userMessage('first question'));
    box.push(userMessage('second question'));
    let results = 0;
    await run(query({ prompt: box, options: opts() }), 1, (m) => {
      if (m.type === 'result' && ++results === 2) box.end();
    });
  },

  // interrupt() while the model is still answering; then one more turn.
  async interrupt() {
    const box = inbox();
    box.push(userMessage('tell me a long story'));
    let interrupted = false;
    let results = 0;
    const q = query({ prompt: box, options: opts({ includePartialMessages: true }) });
    await run(q, 1, async (m) => {
      if (!interrupted && m.type === 'stream_event' && m.event.type === 'content_block_delta') {
        interrupted = true;
        const response = await q.interrupt();
        out({ kind: 'control', name: 'interrupt', response: response ?? null });
      }
      if (m.type !== 'result') return;
      results++;
      if (results === 1) box.push(userMessage('are you still there?'));
      else box.end();
    });
  },

  // A second query resumes the first one's session.
  async resume() {
    const first = await run(query({ prompt: 'remember the word teapot', options: opts() }), 1);
    const init = first.find((m) => m.type === 'system' && m.subtype === 'init');
    await run(query({ prompt: 'what was the word?', options: opts({ resume: init.session_id }) }), 2);
  },

  // Partial messages: the raw stream events of a thinking, text and tool
  // turn.
  async partial() {
    await run(query({ prompt: 'read greet.txt', options: opts({ includePartialMessages: true }) }), 1);
  },

  // setPermissionMode('acceptEdits') before a turn that writes a file: the
  // write needs no canUseTool.
  async mode() {
    const box = inbox();
    const canUseTool = async (tool, input, o) => {
      out({ kind: 'canUseTool', tool, input, toolUseID: o.toolUseID });
      return { behavior: 'deny', message: 'the mode should have allowed it' };
    };
    const q = query({ prompt: box, options: opts({ canUseTool }) });
    const response = await q.setPermissionMode('acceptEdits');
    out({ kind: 'control', name: 'setPermissionMode', response: response ?? null });
    box.push(userMessage('write the file'));
    await run(q, 1, (m) => {
      if (m.type === 'result') box.end();
    });
  },

  // MCP servers from the SDK's options (sent in the initialize request):
  // the model calls one of their tools. MCP_SERVERS is their config.
  async mcp() {
    const mcpServers = JSON.parse(process.env.MCP_SERVERS || '{}');
    await run(query({ prompt: 'echo it', options: opts({ mcpServers, allowedTools: ['mcp__t__echo'] }) }), 1);
  },

  // An in-process MCP server (createSdkMcpServer) with one tool, add,
  // that the model calls: its JSON-RPC travels in mcp_message control
  // requests. The tool reports each call as a kind:"sdkTool" line.
  async sdkmcp() {
    const add = tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => {
      out({ kind: 'sdkTool', tool: 'add', input: { a, b } });
      return { content: [{ type: 'text', text: `sum=${a + b}` }] };
    });
    const calc = createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [add] });
    await run(query({ prompt: 'add them', options: opts({ mcpServers: { calc }, allowedTools: ['mcp__calc__add'] }) }), 1);
  },

  // setModel mid-session: a turn calls the in-process server's add tool
  // and Bash, which canUseTool allows with a session rule for "touch";
  // setModel('nonesuch') is refused, setModel('haiku') switches, and the
  // next turn, on haiku, calls both again.
  async setmodel() {
    const add = tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => {
      out({ kind: 'sdkTool', tool: 'add', input: { a, b } });
      return { content: [{ type: 'text', text: `sum=${a + b}` }] };
    });
    const calc = createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [add] });
    const box = inbox();
    box.push(userMessage('add them'));
    const canUseTool = async (tool, input, o) => {
      out({ kind: 'canUseTool', tool, input, toolUseID: o.toolUseID });
      return { behavior: 'allow', updatedInput: input,
        updatedPermissions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'touch:*' }], behavior: 'allow', destination: 'session' }] };
    };
    const q = query({ prompt: box, options: opts({ mcpServers: { calc }, allowedTools: ['mcp__calc__add'], canUseTool }) });
    let results = 0;
    await run(q, 1, async (m) => {
      if (m.type !== 'result') return;
      if (++results > 1) {
        box.end();
        return;
      }
      try {
        await q.setModel('nonesuch');
        out({ kind: 'control', name: 'setModelUnknown', response: 'accepted' });
      } catch (e) {
        out({ kind: 'control', name: 'setModelUnknown', response: String(e && e.message ? e.message : e) });
      }
      const response = await q.setModel('haiku');
      out({ kind: 'control', name: 'setModel', response: response ?? null });
      box.push(userMessage('add them again'));
    });
  },

  // maxBudgetUsd stops the query once it has cost that much.
  async budget() {
    await run(query({ prompt: 'spend', options: opts({ maxBudgetUsd: 0.5, model: 'anthropic:claude-sonnet-4-5' }) }), 1);
  },

  // agents defines a subagent type the model's Agent call starts;
  // supportedAgents() lists it beside the built-in ones.
  async agents() {
    const agents = { reviewer: { description: 'Reviews files for typos', prompt: 'You are the SDK reviewer (SDK-PROMPT).', tools: ['Read'] } };
    const q = query({ prompt: 'review greet.txt', options: opts({ agents }) });
    out({ kind: 'control', name: 'supportedAgents', response: await q.supportedAgents() });
    await run(q, 1);
  },

  // supportedCommands() lists the session's skills and commands.
  async commands() {
    const q = query({ prompt: 'hi', options: opts() });
    out({ kind: 'control', name: 'supportedCommands', response: await q.supportedCommands() });
    await run(q, 1);
  },

  // canUseTool allows with updatedPermissions: a session rule for
  // "touch" commands, a Write rule saved to the local settings and the
  // acceptEdits mode; a second turn shows the mode.
  async updates() {
    const box = inbox();
    box.push(userMessage('make the files'));
    const canUseTool = async (tool, input, o) => {
      out({ kind: 'canUseTool', tool, input, toolUseID: o.toolUseID });
      if (tool === 'Bash') {
        return { behavior: 'allow', updatedInput: input,
          updatedPermissions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'touch:*' }], behavior: 'allow', destination: 'session' }] };
      }
      return { behavior: 'allow', updatedInput: input, updatedPermissions: [
        { type: 'addRules', rules: [{ toolName: 'Write' }], behavior: 'allow', destination: 'localSettings' },
        { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
        { type: 'addDirectories', directories: ['/tmp'], destination: 'session' },
      ] };
    };
    let results = 0;
    await run(query({ prompt: box, options: opts({ canUseTool }) }), 1, (m) => {
      if (m.type !== 'result') return;
      if (++results === 1) box.push(userMessage('and now?'));
      else box.end();
    });
  },

  // sessionId names the new session, resume carries it on by that id,
  // and persistSession: false keeps none.
  async sessionid() {
    const id = '0b8e7f52-6c1d-4a3e-9f0a-2d4c6e8f1a3b';
    await run(query({ prompt: 'remember teapot', options: opts({ sessionId: id }) }), 1);
    await run(query({ prompt: 'what was it?', options: opts({ resume: id }) }), 2);
    await run(query({ prompt: 'forget it', options: opts({ persistSession: false }) }), 3);
  },

  // fallbackModel answers when the model is overloaded.
  async fallback() {
    await run(query({ prompt: 'go', options: opts({ model: 'anthropic:claude-sonnet-4-5', fallbackModel: 'anthropic:claude-haiku-4-5' }) }), 1);
  },

  // SDK hooks: a PreToolUse callback denies Bash, a PostToolUse one adds
  // context to every result.
  async hooks() {
    const record = (input, toolUseID) => out({ kind: 'hook', event: input.hook_event_name, tool: input.tool_name, toolUseID });
    const hooks = {
      PreToolUse: [{ matcher: 'Bash', hooks: [async (input, toolUseID) => {
        record(input, toolUseID);
        return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no shell from the SDK hook' } };
      }] }],
      PostToolUse: [{ hooks: [async (input, toolUseID) => {
        record(input, toolUseID);
        return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'SDK HOOK CONTEXT' } };
      }] }],
    };
    await run(query({ prompt: 'go', options: opts({ hooks }) }), 1);
  },

  // includeHookEvents (--include-hook-events): the settings' PreToolUse
  // command hook and the SDK's own callback, each run told as a
  // hook_started and a hook_response system message.
  async hookevents() {
    const hooks = {
      PreToolUse: [{ matcher: 'Bash', hooks: [async (input, toolUseID) => {
        out({ kind: 'hook', event: input.hook_event_name, tool: input.tool_name, toolUseID });
        return {};
      }] }],
    };
    await run(query({ prompt: 'go', options: opts({ includeHookEvents: true, hooks, allowedTools: ['Bash'] }) }), 1);
  },

  // outputFormat: the answer held to a JSON schema, in structured_output.
  async structured() {
    const schema = { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city', 'population'] };
    await run(query({ prompt: 'the largest city of France?', options: opts({ outputFormat: { type: 'json_schema', schema } }) }), 1);
  },

  // settings (--settings) deny what allowedTools allows; settingSources
  // (--setting-sources) leave the project's settings file out.
  async settings() {
    const settings = { permissions: { deny: ['Bash(touch pwned*)'] } };
    await run(query({ prompt: 'make the files', options: opts({ settings, settingSources: ['user'], allowedTools: ['Bash'] }) }), 1);
  },

  // A custom system prompt replaces the executable's own.
  async system() {
    await run(query({ prompt: 'who are you?', options: opts({ systemPrompt: 'You are a terse pirate.' }) }), 1);
  },
};

const name = process.argv[2];
if (!scenarios[name]) {
  console.error(`drive.mjs: no scenario ${name}; have ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
await scenarios[name]();
out({ kind: 'end' });
