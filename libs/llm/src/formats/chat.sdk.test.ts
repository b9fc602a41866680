import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import OpenAI from "openai";
import type { CanonicalResponse } from "../canonical/types.js";
import { chatFormat } from "./chat.js";
import {
  encodeStream,
  type SdkServer,
  startSdkServer,
  TEXT_STREAM,
  TOOL_STREAM,
} from "./sdk-server.test-support.js";

// The official openai SDK is the judge: if it reads our bodies and streams unchanged, so will the
// clients built on it.
const context = { id: "chatcmpl-trace-1", model: "gpt-4o-mini", created: 1_700_000_000 };

describe("chat format through the openai SDK", () => {
  let server: SdkServer;
  let client: OpenAI;
  before(async () => {
    server = await startSdkServer();
    client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: "x", maxRetries: 0 });
  });
  after(() => server.close());

  const request = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };

  it("reads a rendered completion: text, tool calls, usage, finish reason", async () => {
    const response: CanonicalResponse = {
      id: "up",
      model: "gpt-upstream",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      ],
      stopReason: "tool_calls",
      usage: { inputTokens: 50, outputTokens: 9, cacheReadTokens: 20, cacheWriteTokens: 0 },
    };
    server.answer({ json: chatFormat.renderResponse(response, context) });
    const completion = await client.chat.completions.create(request);
    assert.equal(completion.id, context.id);
    assert.equal(completion.model, "gpt-4o-mini");
    const choice = completion.choices[0];
    assert.equal(choice?.finish_reason, "tool_calls");
    assert.equal(choice?.message.content, "Checking.");
    const call = choice?.message.tool_calls?.[0];
    assert.equal(call?.type, "function");
    assert.equal(call?.type === "function" ? call.function.name : "", "get_weather");
    assert.deepEqual(completion.usage, {
      prompt_tokens: 50,
      completion_tokens: 9,
      total_tokens: 59,
      prompt_tokens_details: { cached_tokens: 20 },
    });
  });

  it("streams text through `for await`: the trace chunk and the content extras are harmless", async () => {
    server.answer({ sse: encodeStream(chatFormat.createStreamEncoder(context), TEXT_STREAM) });
    const stream = await client.chat.completions.create({ ...request, stream: true });
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "Hello, world");
    assert.equal(finish, "stop");
    assert.equal(usage?.prompt_tokens, 10);
    assert.equal(usage?.completion_tokens, 3);
    assert.equal(usage?.prompt_tokens_details?.cached_tokens, 4);
    // trace + role + 2 text + finish + usage; [DONE] is consumed by the SDK.
    assert.equal(chunks, 6);
  });

  it("streams tool calls the chat.completions.stream helper assembles", async () => {
    server.answer({ sse: encodeStream(chatFormat.createStreamEncoder(context), TOOL_STREAM) });
    const stream = client.chat.completions.stream({ ...request, stream: true });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]?.message;
    assert.equal(message?.content, "Let me check.");
    const calls = (message?.tool_calls ?? []).map((call) =>
      call.type === "function" ? [call.id, call.function.name, call.function.arguments] : [],
    );
    assert.deepEqual(calls, [
      ["call_a", "get_weather", '{"city":"Paris"}'],
      ["call_b", "get_time", '{"tz":"CET"}'],
    ]);
    assert.equal(final.choices[0]?.finish_reason, "tool_calls");
    assert.equal(final.usage?.total_tokens, 150);
  });

  it("throws APIError on a mid-stream error frame, after the text before it", async () => {
    const encoder = chatFormat.createStreamEncoder(context);
    const sse = encodeStream(encoder, TEXT_STREAM.slice(0, 3), {
      error: { message: "provider went away", type: "upstream_error", code: "upstream_error" },
    });
    server.answer({ sse });
    const stream = await client.chat.completions.create({ ...request, stream: true });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    })().catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.message, "provider went away");
    assert.equal(error.code, "upstream_error");
    assert.equal(error.type, "upstream_error");
    assert.equal(text, "Hello");
    assert.equal(encoder.snapshot().stopReason, "error");
  });

  it("reads renderError as an APIError with the gateway's code", async () => {
    server.answer({
      status: 400,
      json: chatFormat.renderError({
        message: "bad field",
        type: "invalid_request_error",
        code: "invalid_request",
      }),
    });
    const error = await client.chat.completions.create(request).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, /bad field/);
  });
});
