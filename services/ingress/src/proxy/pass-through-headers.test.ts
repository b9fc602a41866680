import assert from "node:assert/strict";
import { test } from "node:test";
import { forwardedHeaders, returnedHeaders } from "./pass-through-headers.js";

const incoming = {
  host: "gateway.local",
  connection: "keep-alive",
  "content-length": "12",
  "transfer-encoding": "chunked",
  "accept-encoding": "gzip, br",
  authorization: "Bearer sk-rt-client-token",
  "x-api-key": "sk-rt-client-token",
  "x-goog-api-key": "client",
  "api-key": "client",
  "content-type": "application/json",
  "openai-beta": "assistants=v2",
  "x-multi": ["a", "b"],
};

test("client credentials and hop-by-hop headers never go upstream; the rest does", () => {
  const headers = forwardedHeaders(incoming, "openai", "sk-upstream");
  assert.deepEqual(headers, {
    "content-type": "application/json",
    "openai-beta": "assistants=v2",
    "x-multi": "a, b",
    authorization: "Bearer sk-upstream",
  });
  assert.ok(!JSON.stringify(headers).includes("sk-rt-client-token"));
});

test("the model's key goes in its kind's header", () => {
  const anthropic = forwardedHeaders({ "anthropic-version": "2023-01-01" }, "anthropic", "k");
  assert.deepEqual(anthropic, { "anthropic-version": "2023-01-01", "x-api-key": "k" });
  assert.equal(forwardedHeaders({}, "anthropic", "k")["anthropic-version"], "2023-06-01");
  assert.deepEqual(forwardedHeaders({}, "gemini", "k"), { "x-goog-api-key": "k" });
  assert.deepEqual(forwardedHeaders({}, "ollama", null), {});
});

test("hop-by-hop headers of the answer are removed, the others kept", () => {
  const returned = returnedHeaders({
    "content-type": "application/json",
    "content-encoding": "gzip",
    "transfer-encoding": "chunked",
    connection: "close",
    "keep-alive": "timeout=5",
    "x-request-id": "req_1",
    "set-cookie": ["a=1", "b=2"],
  });
  assert.deepEqual(returned, {
    "content-type": "application/json",
    "x-request-id": "req_1",
    "set-cookie": ["a=1", "b=2"],
  });
});
