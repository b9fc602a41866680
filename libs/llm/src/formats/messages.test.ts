import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GatewayError } from "@gw/errors";
import { messagesFormat } from "./messages.js";
import { encodeStream, parseSse, TEXT_STREAM } from "./sdk-server.test-support.js";

function rejects(body: unknown, message: RegExp): void {
  assert.throws(
    () => messagesFormat.parseRequest(body),
    (error: unknown) => error instanceof GatewayError && error.status === 400 && message.test(error.message),
  );
}

const hi = [{ role: "user", content: "hi" }];

describe("messages format: parseRequest", () => {
  it("reads a minimal request", () => {
    assert.deepEqual(messagesFormat.parseRequest({ model: "claude", max_tokens: 10, messages: hi }), {
      request: {
        model: "claude",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        stream: false,
        maxTokens: 10,
      },
    });
  });

  it("reads system as a string or as text blocks", () => {
    assert.equal(
      messagesFormat.parseRequest({ max_tokens: 1, messages: hi, system: "Be brief." }).request.system,
      "Be brief.",
    );
    const blocks = messagesFormat.parseRequest({
      max_tokens: 1,
      messages: hi,
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Use French.", cache_control: { type: "ephemeral" } },
      ],
    });
    assert.equal(blocks.request.system, "Be brief.\n\nUse French.");
  });

  it("reads tool_use and tool_result blocks: results become tool messages before the user's text", () => {
    const { request } = messagesFormat.parseRequest({
      max_tokens: 100,
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "sunny" },
            { type: "text", text: "and tomorrow?" },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_9",
              is_error: true,
              content: [{ type: "text", text: "failed" }],
            },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages, [
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_call", id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolCallId: "toolu_1",
            name: "get_weather",
            content: [{ type: "text", text: "sunny" }],
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: "and tomorrow?" }] },
      {
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolCallId: "toolu_9",
            isError: true,
            content: [{ type: "text", text: "failed" }],
          },
        ],
      },
    ]);
  });

  it("reads base64 and url images", () => {
    const { request } = messagesFormat.parseRequest({
      max_tokens: 1,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
            { type: "image", source: { type: "url", url: "https://x/cat.png" } },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[0]?.content, [
      { type: "image", base64: "AAAA", mediaType: "image/png" },
      { type: "image", url: "https://x/cat.png" },
    ]);
  });

  it("reads tools, tool_choice, stop_sequences, metadata.user_id, sampling and stream", () => {
    const { request } = messagesFormat.parseRequest({
      model: "claude",
      max_tokens: 1024,
      messages: hi,
      tools: [
        { name: "get_weather", description: "Weather", input_schema: { type: "object" } },
        { type: "custom", name: "noop", input_schema: { type: "object" } },
      ],
      tool_choice: { type: "any" },
      stop_sequences: ["END"],
      metadata: { user_id: "u-7" },
      temperature: 0.3,
      top_p: 0.8,
      top_k: 5,
      stream: true,
      thinking: { type: "disabled" },
    });
    assert.deepEqual(request.tools, [
      { name: "get_weather", description: "Weather", parameters: { type: "object" } },
      { name: "noop", parameters: { type: "object" } },
    ]);
    assert.deepEqual(request.toolChoice, { type: "required" });
    assert.deepEqual(request.stop, ["END"]);
    assert.equal(request.user, "u-7");
    assert.equal(request.temperature, 0.3);
    assert.equal(request.topP, 0.8);
    assert.equal(request.stream, true);
    const named = messagesFormat.parseRequest({
      max_tokens: 1,
      messages: hi,
      tool_choice: { type: "tool", name: "f" },
    });
    assert.deepEqual(named.request.toolChoice, { type: "tool", name: "f" });
  });

  it("rejects wrong types with a message naming the field", () => {
    rejects({ messages: hi }, /`max_tokens` is required/);
    rejects({ max_tokens: 0, messages: hi }, /`max_tokens` must be a positive integer/);
    rejects({ max_tokens: "10", messages: hi }, /`max_tokens` must be a positive integer/);
    rejects({ max_tokens: 1 }, /`messages` must be a non-empty array/);
    rejects({ max_tokens: 1, messages: [{ role: "system", content: "x" }] }, /put instructions in `system`/);
    rejects({ max_tokens: 1, messages: [{ role: "user", content: [] }] }, /`messages\[0\]\.content`/);
    rejects({ max_tokens: 1, messages: [{ role: "user", content: {} }] }, /`messages\[0\]\.content`/);
    rejects(
      { max_tokens: 1, messages: [{ role: "user", content: [{ type: "tool_use" }] }] },
      /in a user message/,
    );
    rejects(
      { max_tokens: 1, messages: [{ role: "assistant", content: [{ type: "tool_result" }] }] },
      /in an assistant message/,
    );
    rejects(
      {
        max_tokens: 1,
        messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: [] }] }],
      },
      /`messages\[0\]\.content\[0\]\.input` must be an object/,
    );
    rejects(
      { max_tokens: 1, messages: [{ role: "user", content: [{ type: "image", source: { type: "file" } }] }] },
      /`messages\[0\]\.content\[0\]\.source\.type`/,
    );
    rejects(
      {
        max_tokens: 1,
        messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", data: "A" } }] }],
      },
      /source\.media_type/,
    );
    rejects(
      {
        max_tokens: 1,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: 5 }] }],
      },
      /`messages\[0\]\.content\[0\]\.content`/,
    );
    rejects({ max_tokens: 1, messages: hi, system: 5 }, /`system` must be a string/);
    rejects({ max_tokens: 1, messages: hi, system: [{ type: "image" }] }, /`system\[0\]\.type`/);
    rejects({ max_tokens: 1, messages: hi, tools: [{ input_schema: {} }] }, /`tools\[0\]\.name`/);
    rejects(
      { max_tokens: 1, messages: hi, tools: [{ type: "web_search_20250305", name: "web_search" }] },
      /not supported/,
    );
    rejects({ max_tokens: 1, messages: hi, tool_choice: "auto" }, /`tool_choice` must be an object/);
    rejects({ max_tokens: 1, messages: hi, tool_choice: { type: "tool" } }, /`tool_choice\.name`/);
    rejects({ max_tokens: 1, messages: hi, stop_sequences: "END" }, /`stop_sequences` must be an array/);
    rejects(
      { max_tokens: 1, messages: hi, metadata: { user_id: 3 } },
      /`metadata\.user_id` must be a string/,
    );
    rejects({ max_tokens: 1, messages: hi, temperature: "0" }, /`temperature` must be a number/);
    rejects({ max_tokens: 1, messages: hi, stream: "true" }, /`stream` must be a boolean/);
  });
});

describe("messages format: renderResponse and stream encoder", () => {
  const context = { id: "msg_1", model: "claude-asked", created: 1 };

  it("renders stop reasons, merged text, tool_use input ({} when unparsable) and clamped usage", () => {
    const reasons = (["stop", "length", "tool_calls", "content_filter", "error"] as const).map(
      (stopReason) => {
        const body = messagesFormat.renderResponse(
          {
            id: "u",
            model: "m",
            content: [],
            stopReason,
            usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
          },
          context,
        ) as { stop_reason: string };
        return body.stop_reason;
      },
    );
    assert.deepEqual(reasons, ["end_turn", "max_tokens", "tool_use", "refusal", "end_turn"]);
    const body = messagesFormat.renderResponse(
      {
        id: "u",
        model: "served",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
          { type: "tool_call", id: "call_x", name: "f", arguments: "{not json" },
          { type: "tool_call", id: "toolu_y", name: "g", arguments: "[1]" },
        ],
        stopReason: "tool_calls",
        usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 10, cacheWriteTokens: 0 },
      },
      context,
    );
    assert.deepEqual(body, {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-asked",
      content: [
        { type: "text", text: "ab" },
        { type: "tool_use", id: "call_x", name: "f", input: {} },
        { type: "tool_use", id: "toolu_y", name: "g", input: {} },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 0,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 10,
      },
    });
  });

  it("streams named events with the type inside, trace first, usage in message_delta", () => {
    const frames = parseSse(encodeStream(messagesFormat.createStreamEncoder(context), TEXT_STREAM));
    for (const frame of frames) assert.equal((frame.data as { type: string }).type, frame.event);
    assert.deepEqual(frames[0]?.data, {
      type: "trace",
      model: "gpt-routed",
      provider: "openai",
      policies: ["cheapest"],
      costEstimate: 0.0012,
    });
    const start = frames[1]?.data as { message: { usage: { input_tokens: number } } };
    assert.equal(start.message.usage.input_tokens, 0, "not known yet at the start event");
    assert.deepEqual(frames.at(-2)?.data, {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: {
        input_tokens: 6,
        output_tokens: 3,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 4,
      },
    });
    assert.deepEqual(frames.at(-1)?.data, { type: "message_stop" });
  });

  it("ends an empty stream validly: message_start, message_delta, message_stop", () => {
    const encoder = messagesFormat.createStreamEncoder(context);
    assert.deepEqual(
      parseSse(encoder.end()).map((frame) => frame.event),
      ["message_start", "message_delta", "message_stop"],
    );
    assert.equal(encoder.end(), "");
  });

  it("writes only the error event on error", () => {
    const encoder = messagesFormat.createStreamEncoder(context);
    encoder.event({ type: "text", text: "x" });
    assert.equal(
      encoder.error({ message: "boom", type: "upstream_error", code: "upstream_error" }),
      'event: error\ndata: {"type":"error","error":{"type":"upstream_error","message":"boom","code":"upstream_error"}}\n\n',
    );
    assert.equal(encoder.end(), "");
    assert.equal(encoder.snapshot().stopReason, "error");
  });

  it("renders Anthropic's error envelope", () => {
    assert.deepEqual(messagesFormat.renderError({ message: "m", type: "t", code: "c" }), {
      type: "error",
      error: { type: "t", message: "m", code: "c" },
    });
  });
});
