import assert from "node:assert/strict";
import { test } from "node:test";
import { messageOf, providerErrorMessage } from "./errors.js";
import { imageBase64, imageUrl, mediaTypeFromUrl, parseDataUrl, remoteImageUrl } from "./images.js";
import { argumentsObject, argumentsText } from "./json-args.js";
import { PNG_BASE64 } from "./test-support.js";
import { anthropicToolUseId, mistralToolCallId, newToolCallId } from "./tool-ids.js";

test("images: data URLs, raw base64 and remote URLs convert both ways", () => {
  assert.deepEqual(parseDataUrl(`data:image/jpg;base64,${PNG_BASE64}`), {
    mediaType: "image/jpeg",
    data: PNG_BASE64,
  });
  assert.deepEqual(parseDataUrl("data:image/png;charset=binary;base64,AAAA\nBBBB"), {
    mediaType: "image/png",
    data: "AAAABBBB",
  });
  assert.deepEqual(parseDataUrl("data:;base64,/9j/AAAA"), { mediaType: "image/jpeg", data: "/9j/AAAA" });
  assert.equal(parseDataUrl("https://example.com/a.png"), null);
  assert.equal(parseDataUrl("data:text/plain,hello"), null);
  assert.deepEqual(imageBase64({ type: "image", base64: "R0lGODlhAQABAAAAACw=" }), {
    mediaType: "image/gif",
    data: "R0lGODlhAQABAAAAACw=",
  });
  assert.equal(
    imageUrl({ type: "image", base64: PNG_BASE64, mediaType: "image/png" }),
    `data:image/png;base64,${PNG_BASE64}`,
  );
  assert.equal(
    remoteImageUrl({ type: "image", url: "https://example.com/a.png" }),
    "https://example.com/a.png",
  );
  assert.equal(remoteImageUrl({ type: "image", url: `data:image/png;base64,${PNG_BASE64}` }), undefined);
  assert.equal(mediaTypeFromUrl("https://x.test/photo.JPG?size=2"), "image/jpeg");
  assert.equal(mediaTypeFromUrl("https://x.test/photo"), undefined);
});

test("json-args: arguments text <-> object, tolerant of empty and broken text", () => {
  assert.deepEqual(argumentsObject('{"a":1}'), { a: 1 });
  assert.deepEqual(argumentsObject(""), {});
  assert.deepEqual(argumentsObject('{"a":'), {});
  assert.deepEqual(argumentsObject("[1]"), {});
  assert.equal(argumentsText({ a: 1 }), '{"a":1}');
  assert.equal(argumentsText('{"a":1}'), '{"a":1}');
  assert.equal(argumentsText(null), "{}");
  assert.equal(argumentsText("null"), "{}");
  assert.equal(argumentsText(undefined), "{}");
});

test("tool ids: unique made-up ids, Mistral's 9-character form, Anthropic's character set", () => {
  const ids = new Set(Array.from({ length: 100 }, newToolCallId));
  assert.equal(ids.size, 100);
  for (const id of ids) assert.match(id, /^call_[0-9a-f]{24}$/);
  assert.equal(mistralToolCallId("D681PevKs"), "D681PevKs");
  assert.match(mistralToolCallId("toolu_01A09q90qw90lq917835lq9"), /^[a-zA-Z0-9]{9}$/);
  assert.equal(mistralToolCallId("call_1"), mistralToolCallId("call_1"));
  assert.notEqual(mistralToolCallId("call_1"), mistralToolCallId("call_2"));
  assert.equal(anthropicToolUseId("functions.get:0"), "functions_get_0");
  assert.equal(anthropicToolUseId("toolu_01-x"), "toolu_01-x");
});

test("errors: messages of every documented error shape, and fallbacks", () => {
  assert.equal(messageOf({ error: { message: "m1" } }), "m1");
  assert.equal(messageOf({ type: "error", error: { type: "x", message: "m2" } }), "m2");
  assert.equal(messageOf({ error: "m3" }), "m3");
  assert.equal(messageOf({ message: "m4" }), "m4");
  assert.equal(messageOf({ detail: "m5" }), "m5");
  assert.equal(messageOf([{ error: { code: 400, message: "m6", status: "INVALID_ARGUMENT" } }]), "m6");
  assert.equal(messageOf({ error: {} }), undefined);
  assert.equal(providerErrorMessage("X", 418, ""), "X returned HTTP 418");
  assert.equal(providerErrorMessage("X", 502, "<!DOCTYPE html><html></html>"), "X returned HTTP 502");
  assert.equal(providerErrorMessage("X", 500, "a".repeat(300)), `X returned HTTP 500: ${"a".repeat(200)}...`);
});
