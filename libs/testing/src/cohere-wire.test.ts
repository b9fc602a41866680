import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";
import { parseSse } from "./wire-parse.js";

// No Cohere SDK is installed: the shapes are checked against the documented examples
// (https://docs.cohere.com/reference/chat, https://docs.cohere.com/v2/docs/streaming).
describe("fake upstream (Cohere v2 chat)", () => {
  let upstream: FakeUpstream;
  before(async () => {
    upstream = await startFakeUpstream();
  });
  after(() => upstream.close());

  const chat = async (body: Record<string, unknown>, auth: string | null = "Bearer co-fake") => {
    const response = await fetch(`${upstream.baseUrlFor("cohere")}/v2/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
      body: JSON.stringify({ model: "command-a-03-2025", ...body }),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const tools = [
    { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } },
  ];

  it("answers a chat response", async () => {
    upstream.setBehaviour({});
    const response = await chat({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello there" },
      ],
    });
    assert.equal(response.status, 200);
    const body = JSON.parse(response.text);
    assert.equal(typeof body.id, "string");
    assert.deepEqual(body.message, {
      role: "assistant",
      content: [{ type: "text", text: "Echo: hello there" }],
    });
    assert.equal(body.finish_reason, "COMPLETE");
    assert.deepEqual(body.usage.billed_units, { input_tokens: 4, output_tokens: 3 });
    assert.deepEqual(body.usage.tokens, { input_tokens: 4, output_tokens: 3 });
    assert.equal(upstream.requests.at(-1)?.kind, "cohere");
  });

  it("streams named SSE events whose data carries the same type", async () => {
    upstream.setBehaviour({ content: "alpha beta" });
    const response = await chat({ messages: [{ role: "user", content: "hi" }], stream: true });
    const events = parseSse(response.text);
    assert.equal(events.at(-1)?.data, "[DONE]");
    const named = events.slice(0, -1);
    assert.deepEqual(
      named.map((e) => e.event),
      ["message-start", "content-start", "content-delta", "content-delta", "content-end", "message-end"],
    );
    const data = named.map((e) => JSON.parse(e.data));
    for (const [i, d] of data.entries()) assert.equal(d.type, named[i]!.event);
    assert.equal(typeof data[0].id, "string");
    assert.deepEqual(data[0].delta, {
      message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] },
    });
    assert.deepEqual(data[1], {
      type: "content-start",
      index: 0,
      delta: { message: { content: { type: "text", text: "" } } },
    });
    assert.equal(data[2].delta.message.content.text + data[3].delta.message.content.text, "alpha beta");
    assert.deepEqual(data[5].delta, {
      finish_reason: "COMPLETE",
      usage: {
        billed_units: { input_tokens: 1, output_tokens: 2 },
        tokens: { input_tokens: 1, output_tokens: 2 },
        cached_tokens: 0,
      },
    });
  });

  it("calls a tool, streamed or not", async () => {
    upstream.setBehaviour({ toolArguments: { city: "Paris" } });
    const messages = [{ role: "user", content: "weather?" }];
    const body = JSON.parse((await chat({ messages, tools })).text);
    assert.equal(body.finish_reason, "TOOL_CALL");
    assert.equal(typeof body.message.tool_plan, "string");
    const call = body.message.tool_calls[0];
    assert.equal(call.type, "function");
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Paris" });

    const events = parseSse((await chat({ messages, tools, stream: true })).text).slice(0, -1);
    const types = events.map((e) => e.event);
    assert.equal(types[0], "message-start");
    assert.ok(types.includes("tool-plan-delta"));
    const data = events.map((e) => JSON.parse(e.data));
    const start = data.find((d) => d.type === "tool-call-start");
    assert.equal(start.index, 0);
    assert.equal(start.delta.message.tool_calls.function.name, "get_weather");
    assert.equal(start.delta.message.tool_calls.function.arguments, "");
    const deltas = data.filter((d) => d.type === "tool-call-delta");
    assert.ok(deltas.length >= 2);
    assert.deepEqual(JSON.parse(deltas.map((d) => d.delta.message.tool_calls.function.arguments).join("")), {
      city: "Paris",
    });
    assert.deepEqual(types.slice(-2), ["tool-call-end", "message-end"]);
    assert.equal(data.at(-1).delta.finish_reason, "TOOL_CALL");
  });

  it("answers a tool result, images, JSON mode and max_tokens", async () => {
    upstream.setBehaviour({});
    const text = async (body: Record<string, unknown>) =>
      JSON.parse((await chat(body)).text).message.content[0].text;
    const afterTool = await text({
      tools,
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          tool_plan: "I will check.",
          tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: [{ type: "document", document: { data: "21C" } }] },
      ],
    });
    assert.equal(afterTool, "Tool result: 21C");
    const images = await text({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    assert.equal(images, "Echo: what is this [images: 1]");
    const json = await text({
      messages: [{ role: "user", content: "give json" }],
      response_format: { type: "json_object" },
    });
    assert.deepEqual(JSON.parse(json), { echo: "give json" });
    const cut = JSON.parse(
      (await chat({ messages: [{ role: "user", content: "one two three" }], max_tokens: 2 })).text,
    );
    assert.equal(cut.message.content[0].text, "Echo: one");
    assert.equal(cut.finish_reason, "MAX_TOKENS");
  });

  it("answers errors as { id, message }, with retry-after", async () => {
    upstream.setBehaviour({ status: 429, retryAfterSeconds: 5 });
    const limited = await chat({ messages: [{ role: "user", content: "x" }] });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "5");
    const body = JSON.parse(limited.text);
    assert.deepEqual(Object.keys(body).sort(), ["id", "message"]);
    assert.equal(typeof body.message, "string");
    upstream.setBehaviour({});
    const noKey = await chat({ messages: [{ role: "user", content: "x" }] }, null);
    assert.equal(noKey.status, 401);
    assert.equal(JSON.parse(noKey.text).message, "no api key supplied");
  });

  it("stalls mid-stream until the client aborts", async () => {
    upstream.setBehaviour({ content: "a b c", stallAfterChunks: 1 });
    const controller = new AbortController();
    const response = await fetch(`${upstream.url}/v2/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = "";
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += new TextDecoder().decode(value);
      }
    })().catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 150));
    const types = parseSse(received).map((e) => e.event);
    assert.deepEqual(types, ["message-start", "content-start", "content-delta"]);
    controller.abort();
    await reading;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(upstream.requests.at(-1)?.aborted, true);
  });
});
