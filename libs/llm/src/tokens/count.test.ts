import assert from "node:assert/strict";
import { test } from "node:test";
import { countRequestTokens, countTextTokens, IMAGE_TOKENS_ESTIMATE } from "./count.js";

test("text is counted with the o200k_base BPE (known counts)", () => {
  // Reference counts from OpenAI's tokenizer for o200k_base.
  assert.equal(countTextTokens("Hello world"), 2);
  assert.equal(countTextTokens(""), 0);
});

test("special-token strings in user text are counted as text, not refused", () => {
  assert.ok(countTextTokens("a <|endoftext|> b") > 3);
});

test("a request adds the chat framing, tools and images", () => {
  const base = {
    model: "m",
    stream: false,
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "Hello world" }] }],
  };
  // 3 priming + 3 per message + 2 text tokens.
  assert.equal(countRequestTokens(base), 8);
  const withImage = {
    ...base,
    messages: [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "Hello world" },
          { type: "image" as const, url: "https://example.com/cat.png" },
        ],
      },
    ],
  };
  assert.equal(countRequestTokens(withImage), 8 + IMAGE_TOKENS_ESTIMATE);
  const withTools = {
    ...base,
    system: "Be brief.",
    tools: [{ name: "lookup", parameters: { type: "object" } }],
  };
  assert.ok(countRequestTokens(withTools) > 8 + 3 + countTextTokens("Be brief."));
});
