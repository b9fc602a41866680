import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GatewayError } from "@gw/errors";
import { chatFormat } from "./chat.js";
import { encodeStream, parseSse, TOOL_STREAM } from "./sdk-server.test-support.js";

function rejects(body: unknown, message: RegExp): void {
  assert.throws(
    () => chatFormat.parseRequest(body),
    (error: unknown) => error instanceof GatewayError && error.status === 400 && message.test(error.message),
  );
}

describe("chat format: parseRequest", () => {
  it("reads a minimal request", () => {
    assert.deepEqual(
      chatFormat.parseRequest({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
      {
        request: {
          model: "gpt-4o",
          messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
          stream: false,
        },
      },
    );
  });

  it("joins system and developer messages into the system prompt, in order", () => {
    const { request } = chatFormat.parseRequest({
      model: "m",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        { role: "user", content: "hi" },
      ],
    });
    assert.equal(request.system, "You are terse.\n\nAnswer in French.");
    assert.equal(request.messages.length, 1);
  });

  it("reads a multi-turn conversation with tool calls and tool results (names filled in)", () => {
    const { request } = chatFormat.parseRequest({
      model: "m",
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"c":1}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
        { role: "assistant", content: "It is sunny." },
        { role: "user", content: "thanks" },
      ],
    });
    assert.deepEqual(request.messages, [
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"c":1}' }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolCallId: "call_1",
            name: "get_weather",
            content: [{ type: "text", text: "sunny" }],
          },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "It is sunny." }] },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    ]);
  });

  it("reads image parts (url and detail) beside text", () => {
    const { request } = chatFormat.parseRequest({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image_url", image_url: { url: "https://x/cat.png", detail: "high" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[0]?.content, [
      { type: "text", text: "what is this?" },
      { type: "image", url: "https://x/cat.png", detail: "high" },
      { type: "image", url: "data:image/png;base64,AAAA" },
    ]);
    assert.equal(request.model, "");
  });

  it("reads tools, tool_choice, response_format, stop, user, limits and sampling", () => {
    const { request } = chatFormat.parseRequest({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather",
            parameters: { type: "object" },
            strict: true,
          },
        },
        { type: "function", function: { name: "noop" } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      response_format: {
        type: "json_schema",
        json_schema: { name: "answer", schema: { type: "object" }, strict: true },
      },
      stop: "END",
      user: "user-42",
      max_tokens: 100,
      max_completion_tokens: 50,
      temperature: 0.5,
      top_p: 0.9,
      stream: true,
      stream_options: { include_usage: true },
      some_future_field: { anything: true },
    });
    assert.deepEqual(request.tools, [
      { name: "get_weather", description: "Weather", parameters: { type: "object" } },
      { name: "noop", parameters: { type: "object", properties: {} } },
    ]);
    assert.deepEqual(request.toolChoice, { type: "tool", name: "get_weather" });
    assert.deepEqual(request.responseFormat, {
      type: "json_schema",
      name: "answer",
      schema: { type: "object" },
      strict: true,
    });
    assert.deepEqual(request.stop, ["END"]);
    assert.equal(request.user, "user-42");
    assert.equal(request.maxTokens, 50, "max_completion_tokens wins over max_tokens");
    assert.equal(request.temperature, 0.5);
    assert.equal(request.topP, 0.9);
    assert.equal(request.stream, true);
  });

  it("reads the simple variants: string tool_choice, json_object, stop array, max_tokens alone", () => {
    const { request } = chatFormat.parseRequest({
      messages: [{ role: "user", content: "hi" }],
      tool_choice: "required",
      response_format: { type: "json_object" },
      stop: ["a", "b"],
      max_tokens: 7,
      temperature: null,
    });
    assert.deepEqual(request.toolChoice, { type: "required" });
    assert.deepEqual(request.responseFormat, { type: "json_object" });
    assert.deepEqual(request.stop, ["a", "b"]);
    assert.equal(request.maxTokens, 7);
    assert.equal("temperature" in request, false, "null means not set");
  });

  it("rejects wrong types with a message naming the field", () => {
    const ok = [{ role: "user", content: "hi" }];
    rejects("nope", /body must be a JSON object/);
    rejects([], /body must be a JSON object/);
    rejects({}, /`messages` must be a non-empty array/);
    rejects({ messages: [] }, /`messages` must be a non-empty array/);
    rejects({ messages: "hi" }, /`messages`/);
    rejects({ messages: [1] }, /`messages\[0\]` must be an object/);
    rejects({ messages: [{ role: 1, content: "x" }] }, /`messages\[0\]\.role` must be a string/);
    rejects({ messages: [{ role: "wizard", content: "x" }] }, /`messages\[0\]\.role` must be one of/);
    rejects({ messages: [{ role: "user", content: 5 }] }, /`messages\[0\]\.content`/);
    rejects({ messages: [{ role: "user", content: [] }] }, /`messages\[0\]\.content`/);
    rejects(
      { messages: [{ role: "user", content: [{ type: "video" }] }] },
      /`messages\[0\]\.content\[0\]\.type`/,
    );
    rejects({ messages: [{ role: "user", content: [{ type: "text", text: 1 }] }] }, /content\[0\]\.text/);
    rejects(
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] },
      /image_url\.url/,
    );
    rejects({ messages: [{ role: "assistant", content: null }] }, /needs `content` or `tool_calls`/);
    rejects({ messages: [{ role: "assistant", tool_calls: [{ id: "c" }] }] }, /tool_calls\[0\]\.function/);
    rejects({ messages: [{ role: "tool", content: "x" }] }, /`messages\[0\]\.tool_call_id`/);
    rejects({ messages: ok, model: 4 }, /`model` must be a string/);
    rejects({ messages: ok, stream: "yes" }, /`stream` must be a boolean/);
    rejects({ messages: ok, temperature: "hot" }, /`temperature` must be a number/);
    rejects({ messages: ok, top_p: Number.NaN }, /`top_p` must be a number/);
    rejects({ messages: ok, max_tokens: 0 }, /`max_tokens` must be a positive integer/);
    rejects({ messages: ok, max_tokens: 1.5 }, /`max_tokens` must be a positive integer/);
    rejects(
      { messages: ok, max_completion_tokens: "9" },
      /`max_completion_tokens` must be a positive integer/,
    );
    rejects({ messages: ok, stop: 3 }, /`stop`/);
    rejects({ messages: ok, stop: ["a", 1] }, /`stop\[1\]` must be a string/);
    rejects({ messages: ok, user: 1 }, /`user` must be a string/);
    rejects({ messages: ok, tools: {} }, /`tools` must be an array/);
    rejects({ messages: ok, tools: [{ type: "function" }] }, /`tools\[0\]\.function` must be an object/);
    rejects({ messages: ok, tools: [{ type: "function", function: {} }] }, /`tools\[0\]\.function\.name`/);
    rejects(
      { messages: ok, tools: [{ type: "custom", custom: {} }] },
      /`tools\[0\]\.type` must be "function"/,
    );
    rejects(
      { messages: ok, tools: [{ type: "function", function: { name: "f", parameters: [] } }] },
      /`tools\[0\]\.function\.parameters` must be an object/,
    );
    rejects({ messages: ok, tool_choice: "sometimes" }, /`tool_choice`/);
    rejects({ messages: ok, tool_choice: { type: "function" } }, /`tool_choice\.function`/);
    rejects({ messages: ok, response_format: { type: "yaml" } }, /`response_format\.type`/);
    rejects({ messages: ok, response_format: { type: "json_schema" } }, /`response_format\.json_schema`/);
    rejects({ messages: ok, n: 2 }, /`n` must be 1/);
  });
});

describe("chat format: renderResponse and stream encoder", () => {
  const context = { id: "chatcmpl-1", model: "gpt-4o", created: 1 };

  it("renders null content when the model only called tools, and maps stop reasons", () => {
    const body = chatFormat.renderResponse(
      {
        id: "u",
        model: "m",
        content: [{ type: "tool_call", id: "c", name: "f", arguments: "{}" }],
        stopReason: "tool_calls",
        usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      context,
    ) as { choices: Array<{ message: { content: unknown; tool_calls: unknown[] }; finish_reason: string }> };
    assert.equal(body.choices[0]?.message.content, null);
    assert.equal(body.choices[0]?.message.tool_calls.length, 1);
    const reasons = (["stop", "length", "tool_calls", "content_filter", "error"] as const).map(
      (stopReason) => {
        const rendered = chatFormat.renderResponse(
          { id: "u", model: "m", content: [], stopReason, usage: { ...zeroUsage } },
          context,
        ) as { choices: Array<{ finish_reason: string; message: { content: unknown } }> };
        return rendered.choices[0]?.finish_reason;
      },
    );
    assert.deepEqual(reasons, ["stop", "length", "tool_calls", "content_filter", "stop"]);
  });

  it("writes the trace as a choices-less chunk, text chunks with the top-level extras, then [DONE]", () => {
    const frames = parseSse(encodeStream(chatFormat.createStreamEncoder(context), TOOL_STREAM));
    assert.deepEqual(frames[0]?.data, {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-routed",
      choices: [],
      type: "trace",
      provider: "openai",
      policies: ["cheapest"],
      costEstimate: 0.0012,
    });
    assert.deepEqual((frames[1]!.data as { choices: unknown[] }).choices[0], {
      index: 0,
      delta: { role: "assistant", content: "" },
      logprobs: null,
      finish_reason: null,
    });
    const text = frames[2]?.data as { type: string; delta: string; choices: Array<{ delta: unknown }> };
    assert.equal(text.type, "content");
    assert.equal(text.delta, "Let me ");
    assert.deepEqual(text.choices[0]?.delta, { content: "Let me " });
    assert.equal(frames.at(-1)?.data, "[DONE]");
    const usage = frames.at(-2)?.data as { choices: unknown[]; usage: { total_tokens: number } };
    assert.deepEqual(usage.choices, []);
    assert.equal(usage.usage.total_tokens, 150);
    assert.ok(
      frames.every((frame) => frame.event === undefined),
      "chat frames are unnamed",
    );
  });

  it("ends without a finish event or usage: a stop chunk, no usage chunk, [DONE]", () => {
    const encoder = chatFormat.createStreamEncoder(context);
    const frames = parseSse(encoder.event({ type: "text", text: "hi" }) + encoder.end());
    assert.equal(frames.length, 4);
    assert.equal(
      (frames[2]!.data as { choices: Array<{ finish_reason: string }> }).choices[0]?.finish_reason,
      "stop",
    );
    assert.equal(frames[3]?.data, "[DONE]");
    assert.equal(encoder.end(), "", "end is idempotent");
    assert.equal(encoder.event({ type: "text", text: "late" }), "", "nothing after the end");
  });

  it("maps sparse tool-call indexes to dense ones and ignores deltas of unknown calls", () => {
    const encoder = chatFormat.createStreamEncoder(context);
    const out =
      encoder.event({ type: "tool_call_start", index: 3, id: "c1", name: "f" }) +
      encoder.event({ type: "tool_call_delta", index: 3, arguments: "{}" }) +
      encoder.event({ type: "tool_call_delta", index: 9, arguments: "lost" });
    const indexes = parseSse(out).flatMap(
      (frame) =>
        (frame.data as { choices: Array<{ delta: { tool_calls?: Array<{ index: number }> } }> }).choices[0]
          ?.delta.tool_calls ?? [],
    );
    assert.deepEqual(
      indexes.map((call) => call.index),
      [0, 0],
    );
    assert.deepEqual(encoder.snapshot().content, [
      { type: "tool_call", id: "c1", name: "f", arguments: "{}" },
    ]);
  });

  it("writes only the error frame on error, and the snapshot keeps what was produced", () => {
    const encoder = chatFormat.createStreamEncoder(context);
    encoder.event({ type: "text", text: "partial" });
    const error = encoder.error({ message: "boom", type: "upstream_error", code: "upstream_error" });
    assert.equal(
      error,
      'data: {"error":{"message":"boom","type":"upstream_error","code":"upstream_error"}}\n\n',
    );
    assert.equal(encoder.end(), "");
    assert.deepEqual(encoder.snapshot(), {
      id: "chatcmpl-1",
      model: "gpt-4o",
      content: [{ type: "text", text: "partial" }],
      stopReason: "error",
      usage: { ...zeroUsage },
    });
  });

  it("renders the error envelope", () => {
    assert.deepEqual(chatFormat.renderError({ message: "m", type: "t", code: "c" }), {
      error: { message: "m", type: "t", code: "c" },
    });
  });
});

const zeroUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
