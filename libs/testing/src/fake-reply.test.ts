import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  argumentDeltas,
  decideReply,
  emptySummary,
  type RequestSummary,
  truncateToTokens,
} from "./fake-reply.js";

const summary = (over: Partial<RequestSummary>): RequestSummary => ({
  ...emptySummary(),
  lastIsUser: true,
  ...over,
});

describe("fake reply", () => {
  it("echoes the last user text, counting images", () => {
    const reply = decideReply(
      summary({ lastUserText: "look at this", images: 2, allText: "sys look at this" }),
      {},
    );
    assert.equal(reply.text, "Echo: look at this [images: 2]");
    assert.equal(reply.finish, "stop");
    assert.equal(reply.inputTokens, 4);
    assert.equal(reply.outputTokens, 6);
  });

  it("prefers behaviour.content, then a tool result, then JSON mode", () => {
    assert.equal(decideReply(summary({ lastUserText: "x", json: true }), { content: "fixed" }).text, "fixed");
    assert.equal(
      decideReply(summary({ lastIsUser: false, toolResult: "21C", json: true }), {}).text,
      "Tool result: 21C",
    );
    assert.equal(
      decideReply(summary({ lastUserText: 'say "hi"', json: true }), {}).text,
      '{"echo":"say \\"hi\\""}',
    );
  });

  it("calls the first tool after a user message, unless told not to", () => {
    const tools = ["lookup", "other"];
    const reply = decideReply(summary({ lastUserText: "find cats", tools }), { cachedTokens: 3 });
    assert.deepEqual(reply.toolCall, {
      name: "lookup",
      arguments: { query: "find cats" },
      argumentsJson: '{"query":"find cats"}',
    });
    assert.equal(reply.finish, "tool_call");
    assert.equal(reply.outputTokens, 2);
    assert.equal(reply.cachedTokens, 3);
    assert.equal(
      decideReply(summary({ lastUserText: "x", tools }), { toolArguments: { a: 1 } }).toolCall?.argumentsJson,
      '{"a":1}',
    );
    assert.equal(decideReply(summary({ lastUserText: "x", tools }), { toolCall: false }).toolCall, undefined);
    assert.equal(decideReply(summary({ lastIsUser: false, toolResult: "r", tools }), {}).toolCall, undefined);
  });

  it("cuts the text at the output-token limit", () => {
    const reply = decideReply(summary({ lastUserText: "one two three four", maxTokens: 3 }), {});
    assert.equal(reply.text, "Echo: one two");
    assert.equal(reply.finish, "length");
    assert.equal(reply.outputTokens, 3);
    assert.equal(truncateToTokens("  a  b c", 2), "a  b");
    assert.equal(decideReply(summary({ lastUserText: "a", maxTokens: 5 }), {}).finish, "stop");
  });

  it("splits tool arguments into at least two deltas", () => {
    const json = '{"query":"find cats"}';
    const deltas = argumentDeltas(json);
    assert.ok(deltas.length >= 2);
    assert.equal(deltas.join(""), json);
    assert.deepEqual(argumentDeltas("{}"), ["{", "}"]);
  });
});
