// Regenerates test/fuzz/corpus/*.json, the hostile request bodies the fuzz test sends to every proxy
// endpoint. Each file is raw bytes (many are not JSON) and must be refused with a 4xx by every
// endpoint. Run: node test/fuzz/make-corpus.mjs
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const j = (value) => JSON.stringify(value);
const user = [{ role: "user", content: "x" }];
const entries = {
  empty: "",
  whitespace: "   \n\t ",
  null: "null",
  number: "42",
  string: '"hello"',
  array: "[1,2,3]",
  "truncated-object": '{"model": "m", "messages": [',
  "trailing-comma": '{"model": "m",}',
  "single-quotes": "{'model': 'm'}",
  "nan-literal": '{"model": "m", "temperature": NaN, "messages": []}',
  "bom-prefixed": '\ufeff{"model":"m"}',
  "invalid-utf8-escape": '{"model": "\\ud800", "messages": "x"}',
  "control-chars": '{"model": "m\u0001", "messages": 5}',
  "empty-object": "{}",
  "messages-null": j({ model: "m", messages: null, max_tokens: 5, input: null }),
  "messages-string": j({ model: "m", messages: "hi", max_tokens: 5, input: 5 }),
  "messages-object": j({ model: "m", messages: { role: "user" }, max_tokens: 5, input: { a: 1 } }),
  "messages-empty": j({ model: "m", messages: [], max_tokens: 5, input: [] }),
  "message-not-object": j({ model: "m", messages: [1, 2], max_tokens: 5, input: [1, 2] }),
  "role-number": j({
    model: "m",
    messages: [{ role: 5, content: "x" }],
    max_tokens: 5,
    input: [{ role: 5, content: "x" }],
  }),
  "role-unknown": j({
    model: "m",
    messages: [{ role: "wizard", content: "x" }],
    max_tokens: 5,
    input: [{ role: "wizard", content: "x" }],
  }),
  "content-number": j({
    model: "m",
    messages: [{ role: "user", content: 7 }],
    max_tokens: 5,
    input: [{ role: "user", content: 7 }],
  }),
  "content-part-unknown": j({
    model: "m",
    messages: [{ role: "user", content: [{ type: "hologram", x: 1 }] }],
    max_tokens: 5,
    input: [{ role: "user", content: [{ type: "hologram" }] }],
  }),
  "content-part-null": j({
    model: "m",
    messages: [{ role: "user", content: [null] }],
    max_tokens: 5,
    input: [{ role: "user", content: [null] }],
  }),
  "text-part-number": j({
    model: "m",
    messages: [{ role: "user", content: [{ type: "text", text: 1 }] }],
    max_tokens: 5,
    input: [{ role: "user", content: [{ type: "input_text", text: 1 }] }],
  }),
  "image-url-missing": j({
    model: "m",
    messages: [{ role: "user", content: [{ type: "image_url" }, { type: "image" }] }],
    max_tokens: 5,
    input: [{ role: "user", content: [{ type: "input_image" }] }],
  }),
  "model-object": j({ model: { $gt: "" }, messages: user, max_tokens: 5, input: "x" }),
  "stream-string": j({ model: "m", stream: "yes", messages: user, max_tokens: 5, input: "x" }),
  "max-tokens-negative": j({ model: "m", max_tokens: -1, max_output_tokens: -1, messages: user, input: "x" }),
  "max-tokens-float": j({ model: "m", max_tokens: 1.5, max_output_tokens: 1.5, messages: user, input: "x" }),
  "max-tokens-string": j({
    model: "m",
    max_tokens: "10",
    max_output_tokens: "10",
    messages: user,
    input: "x",
  }),
  "max-tokens-huge":
    '{"model":"m","max_tokens":1e400,"max_output_tokens":1e400,"messages":[{"role":"user","content":"x"}],"input":"x"}',
  "temperature-string": j({ model: "m", temperature: "hot", max_tokens: 5, messages: user, input: "x" }),
  "tools-not-array": j({ model: "m", tools: "all", max_tokens: 5, messages: user, input: "x" }),
  "tool-malformed": j({
    model: "m",
    tools: [{ type: "function" }, { name: 5 }],
    max_tokens: 5,
    messages: user,
    input: "x",
  }),
  "tool-call-malformed": j({
    model: "m",
    max_tokens: 5,
    messages: [{ role: "assistant", tool_calls: [{ id: 1 }], content: [{ type: "tool_use" }] }],
    input: [{ type: "function_call" }],
  }),
  "tool-result-orphan-shape": j({
    model: "m",
    max_tokens: 5,
    messages: [
      { role: "tool", content: { x: 1 } },
      { role: "user", content: [{ type: "tool_result" }] },
    ],
    input: [{ type: "function_call_output" }],
  }),
  "proto-pollution":
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"model":"m","messages":"x","input":5}',
  "system-wrong-type": j({
    model: "m",
    system: 5,
    instructions: 5,
    max_tokens: 5,
    messages: [{ role: "system", content: 5 }, ...user],
    input: "x",
  }),
  "stop-wrong-type": j({
    model: "m",
    stop: 5,
    stop_sequences: "x",
    max_tokens: 5,
    messages: user,
    input: "x",
    text: { format: { type: "nonsense" } },
  }),
  "response-format-wrong": j({
    model: "m",
    response_format: { type: "xml" },
    max_tokens: 5,
    messages: user,
    input: "x",
    text: 5,
    system: [{ type: "text", text: 5 }],
  }),
  "previous-response-number": j({
    model: "m",
    previous_response_id: 5,
    input: "x",
    max_tokens: 5,
    messages: "x",
  }),
  "user-object": j({
    model: "m",
    user: { id: 1 },
    metadata: { user_id: 5 },
    max_tokens: 5,
    messages: user,
    input: "x",
  }),
  "deep-array-1000": `{"model":"m","messages":${"[".repeat(1000)}${"]".repeat(1000)},"input":${"[".repeat(1000)}${"]".repeat(1000)}}`,
  "deep-object-1000": `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":${'{"a":'.repeat(1000)}1${"}".repeat(1000)}}]}],"input":${'{"a":'.repeat(1000)}1${"}".repeat(1000)}}`,
  "many-messages-not-objects": j({
    model: "m",
    max_tokens: 5,
    messages: Array(5000).fill(null),
    input: Array(5000).fill(null),
  }),
};
const dir = join(import.meta.dirname, "corpus");
mkdirSync(dir, { recursive: true });
for (const [name, body] of Object.entries(entries)) writeFileSync(join(dir, `${name}.json`), body);
console.log(`wrote ${Object.keys(entries).length} files to ${dir}`);
