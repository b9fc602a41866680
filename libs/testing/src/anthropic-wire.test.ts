import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";
import { parseSse } from "./wire-parse.js";

const weatherTool: Anthropic.Tool = {
  name: "get_weather",
  description: "Weather of a city",
  input_schema: { type: "object", properties: { city: { type: "string" } } },
};

// The official SDK judges the format: what it parses, the gateway's Anthropic adapter must parse too.
describe("fake upstream (Anthropic Messages)", () => {
  let upstream: FakeUpstream;
  let client: Anthropic;
  before(async () => {
    upstream = await startFakeUpstream();
    client = new Anthropic({
      apiKey: "sk-ant-fake",
      baseURL: upstream.baseUrlFor("anthropic"),
      maxRetries: 0,
    });
  });
  after(() => upstream.close());

  it("answers a message the SDK parses, with usage and the cache field", async () => {
    upstream.setBehaviour({ cachedTokens: 2 });
    const message = await client.messages.create({
      model: "claude-fake",
      max_tokens: 100,
      system: "be brief",
      messages: [{ role: "user", content: "hello there" }],
    });
    assert.match(message.id, /^msg_/);
    assert.equal(message.type, "message");
    assert.equal(message.role, "assistant");
    assert.equal(message.model, "claude-fake");
    assert.deepEqual(message.content, [{ type: "text", text: "Echo: hello there" }]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.stop_sequence, null);
    // 4 prompt tokens, 2 of them read from the cache: Anthropic counts those apart.
    assert.equal(message.usage.input_tokens, 2);
    assert.equal(message.usage.cache_read_input_tokens, 2);
    assert.equal(message.usage.cache_creation_input_tokens, 0);
    assert.equal(message.usage.output_tokens, 3);
    const recorded = upstream.requests.at(-1)!;
    assert.equal(recorded.kind, "anthropic");
    // This SDK version sends the key as a Bearer token; older ones (and most adapters) use x-api-key.
    const key =
      recorded.headers["x-api-key"] ?? recorded.headers.authorization?.toString().replace(/^Bearer /, "");
    assert.equal(key, "sk-ant-fake");
    assert.ok(recorded.headers["anthropic-version"]);
  });

  it("streams text the SDK's stream helper assembles", async () => {
    upstream.setBehaviour({ content: "alpha beta gamma" });
    const stream = client.messages.stream({
      model: "claude-fake",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    const deltas: string[] = [];
    stream.on("text", (text) => deltas.push(text));
    const message = await stream.finalMessage();
    assert.deepEqual(deltas, ["alpha ", "beta ", "gamma"]);
    assert.deepEqual(message.content, [{ type: "text", text: "alpha beta gamma" }]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.output_tokens, 3);
    assert.equal(message.usage.input_tokens, 1);
  });

  it("sends the documented event sequence", async () => {
    upstream.setBehaviour({ content: "a b" });
    const response = await fetch(`${upstream.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "m",
        max_tokens: 10,
        stream: true,
        messages: [{ role: "user", content: "x" }],
      }),
    });
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = parseSse(await response.text());
    assert.deepEqual(
      events.map((e) => e.event),
      [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ],
    );
    for (const e of events) assert.equal(JSON.parse(e.data).type, e.event);
    const delta = JSON.parse(events[6]!.data);
    assert.deepEqual(delta.delta, { stop_reason: "end_turn", stop_sequence: null });
    assert.equal(delta.usage.output_tokens, 2);
  });

  it("calls a tool, streamed or not", async () => {
    upstream.setBehaviour({ toolArguments: { city: "Paris" } });
    const message = await client.messages.create({
      model: "claude-fake",
      max_tokens: 100,
      messages: [{ role: "user", content: "weather?" }],
      tools: [weatherTool],
    });
    assert.equal(message.stop_reason, "tool_use");
    const block = message.content[0];
    assert.ok(block?.type === "tool_use");
    assert.match(block.id, /^toolu_/);
    assert.equal(block.name, "get_weather");
    assert.deepEqual(block.input, { city: "Paris" });

    const stream = client.messages.stream({
      model: "claude-fake",
      max_tokens: 100,
      messages: [{ role: "user", content: "weather?" }],
      tools: [weatherTool],
    });
    const partials: string[] = [];
    stream.on("inputJson", (partial) => partials.push(partial));
    const streamed = await stream.finalMessage();
    const streamedBlock = streamed.content[0];
    assert.ok(streamedBlock?.type === "tool_use");
    assert.deepEqual(streamedBlock.input, { city: "Paris" });
    assert.equal(streamed.stop_reason, "tool_use");
    assert.ok(partials.filter(Boolean).length >= 2);
  });

  it("answers a tool result, images and the max_tokens limit", async () => {
    upstream.setBehaviour({});
    const afterTool = await client.messages.create({
      model: "claude-fake",
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: {} }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "21C" }] },
          ],
        },
      ],
    });
    assert.deepEqual(afterTool.content, [{ type: "text", text: "Tool result: 21C" }]);

    const images = await client.messages.create({
      model: "claude-fake",
      max_tokens: 100,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "text", text: "what is this" },
          ],
        },
      ],
    });
    assert.deepEqual(images.content, [{ type: "text", text: "Echo: what is this [images: 1]" }]);

    const cut = await client.messages.create({
      model: "claude-fake",
      max_tokens: 2,
      messages: [{ role: "user", content: "one two three" }],
    });
    assert.deepEqual(cut.content, [{ type: "text", text: "Echo: one" }]);
    assert.equal(cut.stop_reason, "max_tokens");
  });

  it("rejects what the real API rejects", async () => {
    upstream.setBehaviour({});
    const send = (headers: Record<string, string>, body: unknown) =>
      fetch(`${upstream.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const noMax = await send(
      { "x-api-key": "k", "anthropic-version": "2023-06-01" },
      { model: "m", messages: [{ role: "user", content: "x" }] },
    );
    assert.equal(noMax.status, 400);
    const body = (await noMax.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "invalid_request_error");
    assert.match(body.error.message, /max_tokens/);
    const noVersion = await send({ "x-api-key": "k" }, { model: "m", max_tokens: 5, messages: [] });
    assert.equal(noVersion.status, 400);
    const noKey = await send(
      { "anthropic-version": "2023-06-01" },
      { model: "m", max_tokens: 5, messages: [] },
    );
    assert.equal(noKey.status, 401);
    assert.equal(((await noKey.json()) as { error: { type: string } }).error.type, "authentication_error");
  });

  it("answers 429 with retry-after and 529 overloaded in Anthropic's error body", async () => {
    upstream.setBehaviour({ status: 429, retryAfterSeconds: 3 });
    const params = { model: "m", max_tokens: 5, messages: [{ role: "user" as const, content: "x" }] };
    const limited = await client.messages.create(params).catch((e) => e);
    assert.ok(limited instanceof Anthropic.RateLimitError);
    assert.equal(limited.headers?.get("retry-after"), "3");
    assert.match(limited.requestID ?? "", /^req_/);
    assert.deepEqual((limited.error as { error: unknown }).error, {
      type: "rate_limit_error",
      message: "This request would exceed the rate limit for your organization.",
    });
    upstream.setBehaviour({ status: 529 });
    const overloaded = await client.messages.create(params).catch((e) => e);
    assert.ok(overloaded instanceof Anthropic.APIError);
    assert.equal(overloaded.status, 529);
    assert.equal((overloaded.error as { error: { type: string } }).error.type, "overloaded_error");
  });

  it("stalls mid-stream until the client aborts", async () => {
    upstream.setBehaviour({ content: "a b c d", stallAfterChunks: 1 });
    const stream = client.messages.stream({
      model: "m",
      max_tokens: 50,
      messages: [{ role: "user", content: "x" }],
    });
    let text = "";
    stream.on("text", (t) => {
      text += t;
    });
    const done = stream.finalMessage().catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(text, "a ");
    stream.abort();
    assert.ok((await done) instanceof Error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(upstream.requests.at(-1)?.aborted, true);
  });
});
