import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import type { CanonicalResponse } from "../canonical/types.js";
import { messagesFormat } from "./messages.js";
import {
  encodeStream,
  type SdkServer,
  startSdkServer,
  TEXT_STREAM,
  TOOL_STREAM,
} from "./sdk-server.test-support.js";

// The official Anthropic SDK (raw streams and the MessageStream helper) is the judge.
const context = { id: "msg_trace1", model: "claude-proxy-test", created: 1_700_000_000 };

describe("messages format through the Anthropic SDK", () => {
  let server: SdkServer;
  let client: Anthropic;
  before(async () => {
    server = await startSdkServer();
    client = new Anthropic({ baseURL: server.baseUrl, apiKey: "x", maxRetries: 0 });
  });
  after(() => server.close());

  const request = {
    model: "claude-proxy-test",
    max_tokens: 100,
    messages: [{ role: "user" as const, content: "hi" }],
  };

  it("reads a rendered Message: text, tool_use input, stop reason, usage without cache tokens", async () => {
    const response: CanonicalResponse = {
      id: "up",
      model: "gpt-upstream",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      ],
      stopReason: "tool_calls",
      usage: { inputTokens: 150, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 20 },
    };
    server.answer({ json: messagesFormat.renderResponse(response, context) });
    const message = await client.messages.create(request);
    assert.equal(message.id, context.id);
    assert.equal(message.model, "claude-proxy-test");
    assert.equal(message.stop_reason, "tool_use");
    assert.deepEqual(message.content[0], { type: "text", text: "Checking." });
    const toolUse = message.content[1];
    assert.equal(toolUse?.type, "tool_use");
    assert.deepEqual(toolUse?.type === "tool_use" ? toolUse.input : undefined, { city: "Paris" });
    assert.equal(message.usage.input_tokens, 30);
    assert.equal(message.usage.cache_read_input_tokens, 100);
    assert.equal(message.usage.cache_creation_input_tokens, 20);
    assert.equal(message.usage.output_tokens, 9);
  });

  it("streams raw events: the trace is yielded as one unknown event, text and usage arrive", async () => {
    server.answer({ sse: encodeStream(messagesFormat.createStreamEncoder(context), TEXT_STREAM) });
    const stream = await client.messages.create({ ...request, stream: true });
    let text = "";
    const types: string[] = [];
    let outputTokens = -1;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      if (event.type === "message_delta") outputTokens = event.usage.output_tokens;
    }
    assert.equal(text, "Hello, world");
    assert.equal(outputTokens, 3);
    assert.deepEqual(types, [
      "trace",
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("streams text and tool calls the MessageStream helper rebuilds into the final Message", async () => {
    server.answer({ sse: encodeStream(messagesFormat.createStreamEncoder(context), TOOL_STREAM) });
    const deltas: string[] = [];
    const stream = client.messages.stream(request);
    stream.on("text", (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    assert.deepEqual(deltas, ["Let me ", "check."]);
    assert.equal(final.stop_reason, "tool_use");
    assert.deepEqual(
      final.content.map((block) =>
        block.type === "text"
          ? block.text
          : block.type === "tool_use"
            ? [block.id, block.name, block.input]
            : null,
      ),
      ["Let me check.", ["call_a", "get_weather", { city: "Paris" }], ["call_b", "get_time", { tz: "CET" }]],
    );
    // Input usage is only known at the end: message_delta carries it, without cache tokens.
    assert.equal(final.usage.input_tokens, 15);
    assert.equal(final.usage.cache_read_input_tokens, 100);
    assert.equal(final.usage.cache_creation_input_tokens, 5);
    assert.equal(final.usage.output_tokens, 30);
  });

  it("throws APIError with the error type on a mid-stream error event", async () => {
    const sse = encodeStream(messagesFormat.createStreamEncoder(context), TEXT_STREAM.slice(0, 3), {
      error: { message: "provider went away", type: "upstream_error", code: "upstream_error" },
    });
    server.answer({ sse });
    const error = await client.messages
      .stream(request)
      .finalMessage()
      .catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.APIError);
    assert.equal(error.type, "upstream_error");
    assert.match(error.message, /provider went away/);
  });

  it("reads renderError as an APIError with the gateway's type and message", async () => {
    server.answer({
      status: 400,
      json: messagesFormat.renderError({
        message: "`max_tokens` is required",
        type: "invalid_request_error",
        code: "invalid_request",
      }),
    });
    const error = await client.messages.create(request).catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.equal(error.type, "invalid_request_error");
    assert.match(error.message, /max_tokens/);
  });
});
