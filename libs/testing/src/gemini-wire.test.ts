import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";
import { parseSse } from "./wire-parse.js";

// No Gemini SDK is installed: the shapes are checked against the documented examples
// (https://ai.google.dev/api/generate-content).
describe("fake upstream (Gemini generateContent)", () => {
  let upstream: FakeUpstream;
  let base: string;
  before(async () => {
    upstream = await startFakeUpstream();
    base = upstream.baseUrlFor("gemini");
  });
  after(() => upstream.close());

  const call = async (method: string, body: unknown, key: string | null = "AIza-fake", query = "") => {
    const response = await fetch(`${base}/models/gemini-2.5-flash:${method}${query}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { "x-goog-api-key": key } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const user = (text: string) => ({ contents: [{ role: "user", parts: [{ text }] }] });

  it("answers a GenerateContentResponse", async () => {
    upstream.setBehaviour({ cachedTokens: 1 });
    const response = await call("generateContent", {
      systemInstruction: { parts: [{ text: "be brief" }] },
      ...user("hello there"),
    });
    assert.equal(response.status, 200);
    const body = JSON.parse(response.text);
    assert.deepEqual(body.candidates, [
      { content: { parts: [{ text: "Echo: hello there" }], role: "model" }, finishReason: "STOP", index: 0 },
    ]);
    assert.deepEqual(body.usageMetadata, {
      promptTokenCount: 4,
      candidatesTokenCount: 3,
      totalTokenCount: 7,
      cachedContentTokenCount: 1,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 4 }],
      cacheTokensDetails: [{ modality: "TEXT", tokenCount: 1 }],
    });
    assert.equal(body.modelVersion, "gemini-2.5-flash");
    assert.equal(typeof body.responseId, "string");
    assert.equal(upstream.requests.at(-1)?.kind, "gemini");
  });

  it("streams SSE chunks, each a GenerateContentResponse, without [DONE]", async () => {
    upstream.setBehaviour({ content: "alpha beta gamma" });
    const response = await call("streamGenerateContent", user("hi"), "AIza-fake", "?alt=sse");
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const chunks = parseSse(response.text).map((e) => JSON.parse(e.data));
    assert.equal(chunks.length, 3);
    assert.equal(chunks.map((c) => c.candidates[0].content.parts[0].text).join(""), "alpha beta gamma");
    assert.ok(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined));
    const last = chunks.at(-1);
    assert.equal(last.candidates[0].finishReason, "STOP");
    assert.equal(last.usageMetadata.candidatesTokenCount, 3);
    assert.equal(last.usageMetadata.totalTokenCount, 4);
    assert.ok(
      chunks.every((c) => c.modelVersion === "gemini-2.5-flash" && c.responseId === chunks[0].responseId),
    );
  });

  it("streams a JSON array without alt=sse", async () => {
    upstream.setBehaviour({ content: "a b" });
    const response = await call("streamGenerateContent", user("hi"));
    const chunks = JSON.parse(response.text);
    assert.equal(chunks.length, 2);
    assert.equal(chunks[1].candidates[0].finishReason, "STOP");
  });

  it("calls a function, streamed or not", async () => {
    upstream.setBehaviour({});
    const request = {
      ...user("weather in Paris"),
      tools: [{ functionDeclarations: [{ name: "get_weather", parameters: { type: "OBJECT" } }] }],
    };
    const body = JSON.parse((await call("generateContent", request)).text);
    assert.deepEqual(body.candidates[0].content.parts, [
      { functionCall: { name: "get_weather", args: { query: "weather in Paris" } } },
    ]);
    assert.equal(body.candidates[0].finishReason, "STOP");
    const streamed = parseSse((await call("streamGenerateContent", request, "k", "?alt=sse")).text);
    assert.equal(streamed.length, 1);
    assert.deepEqual(JSON.parse(streamed[0]!.data).candidates[0].content.parts[0].functionCall.args, {
      query: "weather in Paris",
    });
  });

  it("answers a function response, images, JSON mode and maxOutputTokens", async () => {
    upstream.setBehaviour({});
    const text = async (body: unknown) =>
      JSON.parse((await call("generateContent", body)).text).candidates[0].content.parts[0].text;
    const afterTool = await text({
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { result: "21C" } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: "get_weather" }] }],
    });
    assert.equal(afterTool, "Tool result: 21C");
    const images = await text({
      contents: [
        {
          role: "user",
          parts: [{ text: "what is this" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }],
        },
      ],
    });
    assert.equal(images, "Echo: what is this [images: 1]");
    const json = await text({
      ...user("give json"),
      generationConfig: { responseMimeType: "application/json" },
    });
    assert.deepEqual(JSON.parse(json), { echo: "give json" });
    const cut = JSON.parse(
      (await call("generateContent", { ...user("one two three"), generationConfig: { maxOutputTokens: 2 } }))
        .text,
    );
    assert.equal(cut.candidates[0].content.parts[0].text, "Echo: one");
    assert.equal(cut.candidates[0].finishReason, "MAX_TOKENS");
  });

  it("answers errors in Google's format, with RetryInfo and retry-after", async () => {
    upstream.setBehaviour({ status: 429, retryAfterSeconds: 4 });
    const limited = await call("generateContent", user("x"));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "4");
    const body = JSON.parse(limited.text);
    assert.equal(body.error.code, 429);
    assert.equal(body.error.status, "RESOURCE_EXHAUSTED");
    assert.equal(typeof body.error.message, "string");
    assert.deepEqual(body.error.details, [
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "4s" },
    ]);
    upstream.setBehaviour({});
    const noKey = await call("generateContent", user("x"), null);
    assert.equal(noKey.status, 403);
    assert.equal(JSON.parse(noKey.text).error.status, "PERMISSION_DENIED");
    assert.equal((await call("generateContent", user("x"), null, "?key=AIza")).status, 200);
  });

  it("drops the connection mid-stream", async () => {
    upstream.setBehaviour({ content: "a b c d", dropAfterChunks: 2 });
    const response = await fetch(`${base}/models/m:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": "k" },
      body: JSON.stringify(user("x")),
    });
    assert.equal(response.status, 200);
    await assert.rejects(response.text());
  });
});
