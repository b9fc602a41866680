import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRanking } from "./parse-ranking.js";

const ids = ["gpt-4o", "claude-haiku", "mistral-small"];

describe("parseRanking", () => {
  it("reads the requested object, keeping the model's order", () => {
    assert.deepEqual(parseRanking('{"ranking":["mistral-small","gpt-4o","claude-haiku"]}', ids), [
      "mistral-small",
      "gpt-4o",
      "claude-haiku",
    ]);
  });

  it("drops unknown ids and duplicates", () => {
    assert.deepEqual(parseRanking('{"ranking":["ghost","gpt-4o","gpt-4o","claude-haiku","ghost"]}', ids), [
      "gpt-4o",
      "claude-haiku",
    ]);
  });

  it("tolerates a bare array", () => {
    assert.deepEqual(parseRanking(' ["claude-haiku", "gpt-4o"] ', ids), ["claude-haiku", "gpt-4o"]);
  });

  it("tolerates JSON in code fences", () => {
    const text = 'Here you go:\n```json\n{"ranking": ["gpt-4o", "mistral-small"]}\n```\n';
    assert.deepEqual(parseRanking(text, ids), ["gpt-4o", "mistral-small"]);
    assert.deepEqual(parseRanking('```\n["mistral-small"]\n```', ids), ["mistral-small"]);
  });

  it("tolerates surrounding prose, preferring the ranking object to other arrays", () => {
    const text =
      'The request needs ["vision"] support, so: {"ranking": ["claude-haiku", "gpt-4o"]} is my answer.';
    assert.deepEqual(parseRanking(text, ids), ["claude-haiku", "gpt-4o"]);
  });

  it("handles brackets inside strings", () => {
    const text = 'Note "a } tricky [ string". {"reason":"cheap {fast}","ranking":["gpt-4o"]}';
    assert.deepEqual(parseRanking(text, ids), ["gpt-4o"]);
  });

  it("matches ids that differ only in case, and entries given as objects", () => {
    assert.deepEqual(parseRanking('{"ranking":["GPT-4O",{"id":"claude-haiku"}]}', ids), [
      "gpt-4o",
      "claude-haiku",
    ]);
  });

  it("accepts a single array of names under another key", () => {
    assert.deepEqual(parseRanking('{"models":["mistral-small","gpt-4o"]}', ids), ["mistral-small", "gpt-4o"]);
  });

  it("throws a clear error on an unreadable answer", () => {
    assert.throws(
      () => parseRanking("I would pick gpt-4o.", ids),
      /has no JSON ranking: "I would pick gpt-4o\."/,
    );
    assert.throws(() => parseRanking("", ids), /has no JSON ranking/);
    assert.throws(() => parseRanking('{"ranking": "gpt-4o"}', ids), /has no JSON ranking/);
    assert.throws(() => parseRanking('{"ranking": [1, 2]}', ids), /has no JSON ranking/);
    assert.throws(() => parseRanking('{"ranking": []}', ids), /ranking is empty/);
    assert.throws(() => parseRanking('{"ranking": ["ghost"]}', ids), /names none of the candidates: "ghost"/);
  });

  it("keeps error messages short", () => {
    const error = (() => {
      try {
        parseRanking("x".repeat(5000), ids);
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    assert.ok(error && error.message.length < 250);
  });
});
