import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";

// The official SDK is the judge of the wire format: if it parses our bodies and streams, so will
// any client of the gateway.
describe("fake upstream (OpenAI chat completions)", () => {
  let upstream: FakeUpstream;
  let client: OpenAI;
  before(async () => {
    upstream = await startFakeUpstream();
    client = new OpenAI({ apiKey: "sk-fake", baseURL: upstream.baseUrl, maxRetries: 0 });
  });
  after(() => upstream.close());

  it("answers a chat completion the SDK parses, with usage from the prompt", async () => {
    upstream.setBehaviour({ content: "one two three" });
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "count these four words" }],
    });
    assert.equal(completion.choices[0]?.message.content, "one two three");
    assert.equal(completion.usage?.prompt_tokens, 4);
    assert.equal(completion.usage?.completion_tokens, 3);
    const last = upstream.requests.at(-1);
    assert.equal(last?.headers.authorization, "Bearer sk-fake");
  });

  it("streams chunks the SDK loop reads, ending with usage when asked", async () => {
    upstream.setBehaviour({ content: "alpha beta gamma" });
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "alpha beta gamma");
    assert.equal(usage?.completion_tokens, 3);
  });

  it("answers 429 with retry-after and OpenAI's error body", async () => {
    upstream.setBehaviour({ status: 429, retryAfterSeconds: 2 });
    const error = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e);
    assert.ok(error instanceof OpenAI.RateLimitError);
    assert.equal(error.headers.get("retry-after"), "2");
    assert.equal(error.code, "rate_limit_exceeded");
  });

  it("stalls mid-stream until the client aborts", async () => {
    upstream.setBehaviour({ content: "a b c d e", stallAfterChunks: 2 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "x" }], stream: true },
      { signal: controller.signal },
    );
    let text = "";
    const reading = (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    })();
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(text, "a b ");
    controller.abort();
    // The SDK ends its loop quietly on abort; what matters is that the stream stopped where it stalled.
    await reading.catch(() => {});
    assert.equal(text, "a b ");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(upstream.requests.at(-1)?.aborted, true);
  });

  it("honours latency", async () => {
    upstream.setBehaviour({ latencyMs: 120 });
    const started = Date.now();
    await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] });
    assert.ok(Date.now() - started >= 110);
  });
});
