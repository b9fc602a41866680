import assert from "node:assert/strict";
import { test } from "node:test";
import { NdjsonDecoder } from "./ndjson-decoder.js";
import { feedInChunks } from "./test-support.js";

test("NDJSON: objects per line, split anywhere, blank lines and \\r\\n tolerated, last line without newline", () => {
  const text = '{"a":1}\r\n\n{"b":"x\\ny"}\n{"c":[1,2]}';
  const expected = [{ a: 1 }, { b: "x\ny" }, { c: [1, 2] }];
  const decoder = new NdjsonDecoder();
  assert.deepEqual([...decoder.push(text), ...decoder.end()], expected);
  for (let seed = 1; seed <= 20; seed++)
    assert.deepEqual(feedInChunks(new NdjsonDecoder(), text, seed, 5), expected);
});

test("NDJSON: a line that is not JSON throws a SyntaxError naming the line", () => {
  const decoder = new NdjsonDecoder();
  assert.throws(() => decoder.push("{not json}\n"), /NDJSON stream: line is not JSON: \{not json\}/);
});
