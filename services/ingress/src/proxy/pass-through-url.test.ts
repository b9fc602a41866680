import assert from "node:assert/strict";
import { test } from "node:test";
import { isReservedPath, passThroughUrl } from "./pass-through-url.js";

test("the base's version segment is not doubled", () => {
  assert.equal(
    passThroughUrl("https://api.openai.com/v1", "/v1/embeddings"),
    "https://api.openai.com/v1/embeddings",
  );
  assert.equal(
    passThroughUrl("https://api.openai.com/v1/", "/v1/files?purpose=batch"),
    "https://api.openai.com/v1/files?purpose=batch",
  );
  assert.equal(
    passThroughUrl("https://generativelanguage.googleapis.com/v1beta", "/v1beta/models?pageSize=5"),
    "https://generativelanguage.googleapis.com/v1beta/models?pageSize=5",
  );
});

test("a base without a version keeps the client's path as is", () => {
  assert.equal(
    passThroughUrl("https://api.anthropic.com", "/v1/messages/batches"),
    "https://api.anthropic.com/v1/messages/batches",
  );
  assert.equal(passThroughUrl("http://localhost:11434", "/api/tags"), "http://localhost:11434/api/tags");
});

test("a base with a path prefix keeps it", () => {
  assert.equal(
    passThroughUrl("http://gw.internal/openai/v1", "/v1/embeddings"),
    "http://gw.internal/openai/v1/embeddings",
  );
  assert.equal(
    passThroughUrl("http://gw.internal/openai/v1", "/other"),
    "http://gw.internal/openai/v1/other",
  );
});

test("the client's path cannot change the host", () => {
  const url = new URL(passThroughUrl("https://api.openai.com/v1", "//evil.example/x"));
  assert.equal(url.host, "api.openai.com");
  const traversal = new URL(passThroughUrl("https://api.openai.com/v1", "/../../@evil.example/x"));
  assert.equal(traversal.host, "api.openai.com");
});

test("reserved paths", () => {
  for (const path of ["/", "/health", "/api", "/api/usage", "/dashboard", "/dashboard/", "/dashboard/x"])
    assert.equal(isReservedPath(path), true, path);
  for (const path of ["/v1/embeddings", "/apix", "/healthz", "/v1/api/x"])
    assert.equal(isReservedPath(path), false, path);
});
