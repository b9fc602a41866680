import assert from "node:assert/strict";
import { test } from "node:test";
import { adapterFor, isProviderKind, PROVIDER_KINDS } from "./index.js";

test("adapterFor: one adapter per kind, of that kind", () => {
  assert.deepEqual([...PROVIDER_KINDS].sort(), [
    "anthropic",
    "cohere",
    "custom",
    "gemini",
    "mistral",
    "ollama",
    "openai",
    "xai",
  ]);
  for (const kind of PROVIDER_KINDS) {
    const adapter = adapterFor(kind);
    assert.equal(adapter.kind, kind);
    assert.equal(typeof adapter.buildRequest, "function");
    assert.equal(typeof adapter.createStreamDecoder().push, "function");
  }
  assert.equal(adapterFor("custom").defaultBaseUrl, null);
  for (const kind of PROVIDER_KINDS.filter((kind) => kind !== "custom"))
    assert.match(
      adapterFor(kind).defaultBaseUrl ?? "",
      /^https?:\/\/[^/]+.*[^/]$/,
      `${kind} base URL has no trailing slash`,
    );
});

test("adapterFor: an unknown kind throws a clear Error naming the known ones", () => {
  assert.throws(
    () => adapterFor("bedrock"),
    /^Error: Unknown provider kind "bedrock"; expected one of: openai, anthropic, gemini, mistral, cohere, xai, ollama, custom\.$/,
  );
  assert.equal(isProviderKind("OpenAI"), false);
  assert.equal(isProviderKind("openai"), true);
});

test("every adapter builds a request for an empty-history, tool-less, non-streaming request", () => {
  for (const kind of PROVIDER_KINDS) {
    const built = adapterFor(kind).buildRequest(
      { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false },
      { baseUrl: "http://127.0.0.1:1", upstreamModel: "model-x", apiKey: "k" },
    );
    assert.ok(built.url.startsWith("http://127.0.0.1:1/"), kind);
    assert.equal(built.headers["content-type"], "application/json");
    assert.doesNotThrow(() => JSON.parse(built.body), kind);
    assert.doesNotMatch(built.body, /"stream":true/, kind);
  }
});
