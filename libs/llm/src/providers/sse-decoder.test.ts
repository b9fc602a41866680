import assert from "node:assert/strict";
import { test } from "node:test";
import { SseDecoder, type SseEvent } from "./sse-decoder.js";
import { feedInChunks } from "./test-support.js";

function decodeAll(text: string): SseEvent[] {
  const decoder = new SseDecoder();
  return [...decoder.push(text), ...decoder.end()];
}

const STREAM = [
  ": keep-alive comment\n",
  "event: message_start\n",
  'data: {"a":1}\n',
  "\n",
  "data: first line\n",
  "data: second line\n",
  "\n",
  "id: 7\n",
  "event: custom\n",
  "data:no-space\n",
  "retry: 1000\n",
  "\n",
  "data\n",
  "\n",
].join("");

const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"a":1}' },
  { event: "message", data: "first line\nsecond line" },
  { event: "custom", data: "no-space", id: "7" },
  { event: "message", data: "", id: "7" },
];

test("SSE: events, multi-line data, comments, ids, the optional space", () => {
  assert.deepEqual(decodeAll(STREAM), EXPECTED);
});

test("SSE: \\r\\n and lone \\r line endings read the same as \\n", () => {
  assert.deepEqual(decodeAll(STREAM.replaceAll("\n", "\r\n")), EXPECTED);
  assert.deepEqual(decodeAll(STREAM.replaceAll("\n", "\r")), EXPECTED);
});

test("SSE: chunks split anywhere (including between \\r and \\n) give the same events", () => {
  for (const text of [STREAM, STREAM.replaceAll("\n", "\r\n"), STREAM.replaceAll("\n", "\r")]) {
    for (let seed = 1; seed <= 40; seed++)
      assert.deepEqual(feedInChunks(new SseDecoder(), text, seed, 9), EXPECTED, `seed ${seed}`);
    assert.deepEqual(feedInChunks(new SseDecoder(), text, 0, 1), EXPECTED);
  }
});

test("SSE: a blank line without data dispatches nothing; a leading BOM is ignored", () => {
  assert.deepEqual(decodeAll("\n\n: ping\n\nevent: lonely\n\n"), []);
  assert.deepEqual(decodeAll("\uFEFFdata: x\n\n"), [{ event: "message", data: "x" }]);
});

test("SSE: an event cut before its blank line is still delivered by end()", () => {
  const decoder = new SseDecoder();
  assert.deepEqual(decoder.push('data: {"last":true}'), []);
  assert.deepEqual(decoder.end(), [{ event: "message", data: '{"last":true}' }]);
  const crEnded = new SseDecoder();
  assert.deepEqual(crEnded.push("data: a\r"), []);
  assert.deepEqual(crEnded.end(), [{ event: "message", data: "a" }]);
});
