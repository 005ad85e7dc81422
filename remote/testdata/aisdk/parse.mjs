// Reads an SSE body on stdin and parses it the way a Vercel AI SDK client
// does: parseJsonEventStream with the package's own UI message chunk
// schema, then readUIMessageStream. Prints one JSON object: the chunks
// the schema rejected, the errors the reader reported, and the message
// as the reader built it.
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from 'ai';

const input = await new Promise((resolve) => {
  const parts = [];
  process.stdin.on('data', (d) => parts.push(d));
  process.stdin.on('end', () => resolve(Buffer.concat(parts)));
});
const body = new ReadableStream({
  start(c) { c.enqueue(new Uint8Array(input)); c.close(); },
});
const rejected = [];
const errors = [];
const types = [];
const chunks = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
  new TransformStream({
    transform(r, c) {
      if (!r.success) { rejected.push(String(r.error?.message ?? r.error)); return; }
      types.push(r.value.type);
      c.enqueue(r.value);
    },
  }),
);
let message = null;
try {
  for await (const m of readUIMessageStream({ stream: chunks, onError: (e) => errors.push(String(e?.message ?? e)) })) {
    message = m;
  }
} catch (e) {
  errors.push('reader threw: ' + String(e?.message ?? e));
}
process.stdout.write(JSON.stringify({ rejected, errors, types, message }));
