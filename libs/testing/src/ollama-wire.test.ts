import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";
import { parseNdjson } from "./wire-parse.js";

interface OllamaChunk {
  model: string;
  created_at: string;
  message: {
    role: string;
    content: string;
    tool_calls?: { function: { name: string; arguments: unknown } }[];
  };
  done: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  [key: string]: unknown;
}

// No Ollama SDK is installed: the shapes are checked against the documented examples
// (https://github.com/ollama/ollama/blob/main/docs/api.md).
describe("fake upstream (Ollama /api/chat)", () => {
  let upstream: FakeUpstream;
  before(async () => {
    upstream = await startFakeUpstream();
  });
  after(() => upstream.close());

  const chat = async (body: Record<string, unknown>) => {
    const response = await fetch(`${upstream.baseUrlFor("ollama")}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "llama3.2", ...body }),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];
  const once = async (body: Record<string, unknown>) =>
    JSON.parse((await chat({ ...body, stream: false })).text) as OllamaChunk;

  it("answers one object with stream: false", async () => {
    upstream.setBehaviour({});
    const body = await once({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello there" },
      ],
    });
    assert.equal(body.model, "llama3.2");
    assert.ok(!Number.isNaN(Date.parse(body.created_at)));
    assert.deepEqual(body.message, { role: "assistant", content: "Echo: hello there" });
    assert.equal(body.done, true);
    assert.equal(body.done_reason, "stop");
    assert.equal(body.prompt_eval_count, 4);
    assert.equal(body.eval_count, 3);
    for (const key of ["total_duration", "load_duration", "prompt_eval_duration", "eval_duration"])
      assert.equal(typeof body[key], "number");
    assert.equal(upstream.requests.at(-1)?.kind, "ollama");
  });

  it("streams NDJSON by default, ending with the stats line", async () => {
    upstream.setBehaviour({ content: "alpha beta gamma" });
    const response = await chat({ messages: [{ role: "user", content: "hi" }] });
    assert.equal(response.headers.get("content-type"), "application/x-ndjson");
    const lines = parseNdjson(response.text) as OllamaChunk[];
    assert.equal(lines.length, 4);
    assert.ok(lines.slice(0, -1).every((l) => l.done === false && l.done_reason === undefined));
    assert.equal(lines.map((l) => l.message.content).join(""), "alpha beta gamma");
    const last = lines.at(-1)!;
    assert.equal(last.done, true);
    assert.equal(last.done_reason, "stop");
    assert.equal(last.message.content, "");
    assert.equal(last.eval_count, 3);
  });

  it("calls a tool with an arguments object, streamed or not", async () => {
    upstream.setBehaviour({});
    const messages = [{ role: "user", content: "weather in Paris" }];
    const body = await once({ messages, tools });
    assert.deepEqual(body.message.tool_calls, [
      { function: { name: "get_weather", arguments: { query: "weather in Paris" } } },
    ]);
    assert.equal(body.done_reason, "stop");
    const lines = parseNdjson((await chat({ messages, tools })).text) as OllamaChunk[];
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.message.tool_calls?.[0]?.function.name, "get_weather");
    assert.equal(lines[1]?.done, true);
  });

  it("answers a tool result, images, format and num_predict", async () => {
    upstream.setBehaviour({});
    const afterTool = await once({
      tools,
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ function: { name: "get_weather", arguments: {} } }],
        },
        { role: "tool", content: "21C", tool_name: "get_weather" },
      ],
    });
    assert.equal(afterTool.message.content, "Tool result: 21C");
    const images = await once({
      messages: [{ role: "user", content: "what is this", images: ["iVBORw0KGgo="] }],
    });
    assert.equal(images.message.content, "Echo: what is this [images: 1]");
    const json = await once({ messages: [{ role: "user", content: "give json" }], format: "json" });
    assert.deepEqual(JSON.parse(json.message.content), { echo: "give json" });
    const schema = await once({ messages: [{ role: "user", content: "x" }], format: { type: "object" } });
    assert.deepEqual(JSON.parse(schema.message.content), { echo: "x" });
    const cut = await once({
      messages: [{ role: "user", content: "one two three" }],
      options: { num_predict: 2 },
    });
    assert.equal(cut.message.content, "Echo: one");
    assert.equal(cut.done_reason, "length");
  });

  it("answers errors as { error }, with retry-after", async () => {
    upstream.setBehaviour({ status: 429, retryAfterSeconds: 2 });
    const limited = await chat({ messages: [{ role: "user", content: "x" }] });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "2");
    assert.deepEqual(Object.keys(JSON.parse(limited.text)), ["error"]);
    upstream.setBehaviour({ status: 404, errorMessage: "model 'nope' not found" });
    const missing = await chat({ messages: [] });
    assert.deepEqual(JSON.parse(missing.text), { error: "model 'nope' not found" });
  });

  it("lists local models on GET /api/tags", async () => {
    upstream.setBehaviour({});
    const response = await fetch(`${upstream.url}/api/tags`);
    const body = (await response.json()) as { models: { name: string; details: { format: string } }[] };
    assert.equal(body.models[0]?.name, "fake-model:latest");
    assert.equal(body.models[0]?.details.format, "gguf");
  });

  it("drops the connection mid-stream", async () => {
    upstream.setBehaviour({ content: "a b c", dropAfterChunks: 1, chunkDelayMs: 5 });
    const response = await fetch(`${upstream.url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
    });
    await assert.rejects(response.text());
  });
});
