import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { model } from "../engine/test-fixtures.js";
import {
  ANSWER_FORMAT,
  buildRoutingRequest,
  candidateTable,
  DEFAULT_ROUTING_PROMPT,
  ROUTING_MAX_TOKENS,
} from "./prompt.js";

const candidates = [
  model("gpt-4o", {
    inputPrice: 0.0025,
    outputPrice: 0.01,
    contextWindow: 128000,
    capabilities: ["functionCalling", "vision"],
  }),
  model("local", { provider: "ollama", inputPrice: null, outputPrice: null }),
];
const features = {
  promptExcerpt: "Summarise this contract",
  requiredCapabilities: ["vision"],
  estimatedInputTokens: 1234,
  maxTokens: 0,
};

function userText(request: ReturnType<typeof buildRoutingRequest>): string {
  const part = request.messages[0]?.content[0];
  assert.equal(part?.type, "text");
  return part.type === "text" ? part.text : "";
}

describe("routing prompt", () => {
  it("asks for a JSON ranking, deterministic and short", () => {
    const request = buildRoutingRequest({ candidates, features });
    assert.deepEqual(request.responseFormat, { type: "json_object" });
    assert.equal(request.maxTokens, ROUTING_MAX_TOKENS);
    assert.equal(request.maxTokens, 200);
    assert.equal(request.temperature, 0);
    assert.equal(request.stream, false);
    assert.equal(request.system, `${DEFAULT_ROUTING_PROMPT}\n\n${ANSWER_FORMAT}`);
    assert.match(request.system ?? "", /\{"ranking": \["<model id>", \.\.\.\]\}/);
  });

  it("describes the request and the candidates", () => {
    const text = userText(buildRoutingRequest({ candidates, features: { ...features, maxTokens: 500 } }));
    assert.match(text, /<request>\nSummarise this contract\n<\/request>/);
    assert.match(text, /Required capabilities: vision/);
    assert.match(text, /Estimated input tokens: 1234/);
    assert.match(text, /Requested output limit: 500 tokens/);
    assert.match(text, /gpt-4o \| openai \| 0\.0025 \| 0\.01 \| 128000 \| functionCalling,vision/);
    assert.match(text, /local \| ollama \| unpriced \| unpriced \| \? \| -/);
    assert.match(text, /\{"ranking": \[\.\.\.\]\} only/);
  });

  it("says so when there is no text or capability", () => {
    const text = userText(
      buildRoutingRequest({
        candidates,
        features: { ...features, promptExcerpt: " ", requiredCapabilities: [] },
      }),
    );
    assert.match(text, /<request>\n\(no text\)\n<\/request>/);
    assert.match(text, /Required capabilities: none/);
    assert.doesNotMatch(text, /Requested output limit/);
  });

  it("uses the project's prompt instead of the default, still with the answer format", () => {
    const request = buildRoutingRequest({
      candidates,
      features,
      customPrompt: "Always prefer local models.",
    });
    assert.equal(request.system, `Always prefer local models.\n\n${ANSWER_FORMAT}`);
    assert.doesNotMatch(request.system ?? "", /router of an LLM gateway/);
    assert.match(userText(request), /local \| ollama/);
    // A blank prompt is no prompt.
    assert.equal(
      buildRoutingRequest({ candidates, features, customPrompt: "  " }).system?.startsWith("You are"),
      true,
    );
  });

  it("prints prices without float noise", () => {
    const table = candidateTable([model("m", { inputPrice: 0.1 + 0.2, outputPrice: 0.00015 })]);
    assert.match(table, /m \| openai \| 0\.3 \| 0\.00015 \|/);
  });
});
