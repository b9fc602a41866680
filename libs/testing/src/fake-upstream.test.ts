import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";
import { parseSse } from "./wire-parse.js";

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

const weatherTool: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("fake upstream (OpenAI chat completions: replies from the request)", () => {
  let upstream: FakeUpstream;
  let client: OpenAI;
  before(async () => {
    upstream = await startFakeUpstream();
    client = new OpenAI({ apiKey: "sk-fake", baseURL: upstream.baseUrl, maxRetries: 0 });
  });
  after(() => upstream.close());

  it("echoes the last user message by default and records the kind", async () => {
    upstream.setBehaviour({});
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello there" },
      ],
    });
    assert.equal(completion.choices[0]?.message.content, "Echo: hello there");
    assert.equal(completion.choices[0]?.finish_reason, "stop");
    assert.equal(completion.usage?.prompt_tokens, 4);
    assert.equal(completion.usage?.completion_tokens, 3);
    assert.equal(upstream.requests.at(-1)?.kind, "openai");
  });

  it("calls the first tool, with arguments the SDK parses", async () => {
    upstream.setBehaviour({});
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "weather in Paris" }],
      tools: [weatherTool],
    });
    const choice = completion.choices[0]!;
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, null);
    const call = choice.message.tool_calls?.[0];
    assert.ok(call?.type === "function");
    assert.match(call.id, /^call_/);
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Paris" });
    assert.equal(completion.usage?.completion_tokens, 3);
  });

  it("streams a tool call in argument deltas the SDK assembles", async () => {
    upstream.setBehaviour({ toolArguments: { city: "Paris", unit: "C" } });
    const stream = client.chat.completions.stream({
      model: "m",
      messages: [{ role: "user", content: "weather?" }],
      tools: [weatherTool],
      stream_options: { include_usage: true },
    });
    let argumentDeltas = 0;
    stream.on("chunk", (chunk) => {
      if (chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments) argumentDeltas++;
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    assert.ok(call?.type === "function");
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Paris", unit: "C" });
    assert.equal(final.choices[0]?.finish_reason, "tool_calls");
    assert.ok(argumentDeltas >= 2);
    assert.ok((final.usage?.completion_tokens ?? 0) > 0);
  });

  it("answers a tool result, images, JSON mode and the length limit", async () => {
    upstream.setBehaviour({});
    const afterTool = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "21C and sunny" },
      ],
      tools: [weatherTool],
    });
    assert.equal(afterTool.choices[0]?.message.content, "Tool result: 21C and sunny");
    assert.equal(afterTool.choices[0]?.finish_reason, "stop");

    const images = await client.chat.completions.create({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          ],
        },
      ],
    });
    assert.equal(images.choices[0]?.message.content, "Echo: what is this [images: 2]");

    const json = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "give json" }],
      response_format: { type: "json_object" },
    });
    assert.deepEqual(JSON.parse(json.choices[0]?.message.content ?? ""), { echo: "give json" });

    const cut = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "one two three four" }],
      max_completion_tokens: 2,
    });
    assert.equal(cut.choices[0]?.message.content, "Echo: one");
    assert.equal(cut.choices[0]?.finish_reason, "length");
    assert.equal(cut.usage?.completion_tokens, 2);
  });

  it("reports cached tokens and Mistral-style usage on the finish chunk", async () => {
    upstream.setBehaviour({ cachedTokens: 2, alwaysStreamUsage: true });
    const response = await post(`${upstream.baseUrl}/chat/completions`, {
      model: "mistral-small",
      messages: [{ role: "user", content: "a b c" }],
      stream: true,
    });
    const events = parseSse(response.text);
    assert.equal(events.at(-1)?.data, "[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const finish = chunks.find((c) => c.choices[0]?.finish_reason === "stop");
    assert.deepEqual(
      { ...finish.usage, prompt_tokens_details: finish.usage.prompt_tokens_details.cached_tokens },
      {
        prompt_tokens: 3,
        completion_tokens: 4,
        total_tokens: 7,
        prompt_tokens_details: 2,
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    );
    assert.ok(chunks.slice(0, -1).every((c) => !("usage" in c)));
  });

  it("drops the connection mid-stream and paces chunks", async () => {
    upstream.setBehaviour({ content: "a b c d", dropAfterChunks: 2 });
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    })().catch((e: unknown) => e);
    assert.ok(error instanceof Error);
    assert.equal(text, "a b ");

    upstream.setBehaviour({ content: "a b c", chunkDelayMs: 40 });
    const started = Date.now();
    const paced = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    for await (const _ of paced) {
    }
    assert.ok(Date.now() - started >= 150);
  });

  it("echoes other paths with their query, and sends retry-after with any status", async () => {
    upstream.setBehaviour({ retryAfterSeconds: 7 });
    const response = await post(`${upstream.url}/v1/embeddings?api-version=2024-02-01&x=1`, { input: "hi" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("retry-after"), "7");
    assert.equal(response.headers.get("x-fake-upstream"), "echo");
    assert.deepEqual(JSON.parse(response.text), {
      echo: {
        method: "POST",
        path: "/v1/embeddings?api-version=2024-02-01&x=1",
        query: { "api-version": "2024-02-01", x: "1" },
        body: { input: "hi" },
      },
    });
    assert.equal(upstream.requests.at(-1)?.kind, "echo");

    upstream.setBehaviour({ status: 503, retryAfterSeconds: 1, errorMessage: "busy" });
    const error = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e);
    assert.ok(error instanceof OpenAI.InternalServerError);
    assert.equal(error.status, 503);
    assert.equal(error.headers.get("retry-after"), "1");
    assert.equal(error.message, "503 busy");
  });

  it("gives the base URL of every provider kind", () => {
    const { url } = upstream;
    assert.equal(upstream.baseUrlFor("openai"), `${url}/v1`);
    assert.equal(upstream.baseUrlFor("xai"), `${url}/v1`);
    assert.equal(upstream.baseUrlFor("mistral"), `${url}/v1`);
    assert.equal(upstream.baseUrlFor("custom"), `${url}/v1`);
    assert.equal(upstream.baseUrlFor("anthropic"), url);
    assert.equal(upstream.baseUrlFor("gemini"), `${url}/v1beta`);
    assert.equal(upstream.baseUrlFor("cohere"), url);
    assert.equal(upstream.baseUrlFor("ollama"), url);
  });
});
