import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GatewayError } from "@gw/errors";
import { responsesFormat } from "./responses.js";
import { encodeStream, parseSse, TEXT_STREAM } from "./sdk-server.test-support.js";

function rejects(body: unknown, message: RegExp): void {
  assert.throws(
    () => responsesFormat.parseRequest(body),
    (error: unknown) => error instanceof GatewayError && error.status === 400 && message.test(error.message),
  );
}

describe("responses format: parseRequest", () => {
  it("reads a string input, with store defaulting to true", () => {
    assert.deepEqual(responsesFormat.parseRequest({ model: "gpt-4.1", input: "hi" }), {
      request: {
        model: "gpt-4.1",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        stream: false,
      },
      store: true,
    });
  });

  it("joins instructions and system/developer items into the system prompt", () => {
    const { request } = responsesFormat.parseRequest({
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Use metric units." },
        { type: "message", role: "system", content: [{ type: "input_text", text: "No emojis." }] },
        { role: "user", content: "hi" },
      ],
    });
    assert.equal(request.system, "Be brief.\n\nUse metric units.\n\nNo emojis.");
    assert.equal(request.messages.length, 1);
  });

  it("reads a replayed conversation: output messages, function calls and their outputs", () => {
    const { request, previousResponseId, store } = responsesFormat.parseRequest({
      previous_response_id: "resp_1",
      store: false,
      input: [
        { role: "user", content: [{ type: "input_text", text: "weather in Paris?" }] },
        { type: "reasoning", id: "rs_1", summary: [] },
        {
          type: "message",
          role: "assistant",
          id: "msg_1",
          status: "completed",
          content: [{ type: "output_text", text: "Checking.", annotations: [] }],
        },
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "get_weather",
          arguments: '{"city":"Paris"}',
        },
        { type: "function_call", call_id: "call_2", name: "get_time", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
        {
          type: "function_call_output",
          call_id: "call_2",
          output: [{ type: "input_text", text: "12:00" }],
        },
      ],
    });
    assert.equal(previousResponseId, "resp_1");
    assert.equal(store, false);
    assert.deepEqual(request.messages, [
      { role: "user", content: [{ type: "text", text: "weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "tool_call", id: "call_2", name: "get_time", arguments: "{}" },
        ],
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
      {
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolCallId: "call_2",
            name: "get_time",
            content: [{ type: "text", text: "12:00" }],
          },
        ],
      },
    ]);
  });

  it("reads input_image parts with detail", () => {
    const { request } = responsesFormat.parseRequest({
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "what?" },
            { type: "input_image", image_url: "https://x/cat.png", detail: "low" },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[0]?.content[1], {
      type: "image",
      url: "https://x/cat.png",
      detail: "low",
    });
  });

  it("reads tools, tool_choice, text.format, limits, sampling, user and stream", () => {
    const { request } = responsesFormat.parseRequest({
      model: "m",
      input: "hi",
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object" },
          strict: true,
        },
      ],
      tool_choice: { type: "function", name: "get_weather" },
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: false } },
      max_output_tokens: 64,
      temperature: 1,
      top_p: 0.5,
      user: "u-1",
      stream: true,
      parallel_tool_calls: false,
      reasoning: { effort: "low" },
    });
    assert.deepEqual(request.tools, [
      { name: "get_weather", description: "Weather", parameters: { type: "object" } },
    ]);
    assert.deepEqual(request.toolChoice, { type: "tool", name: "get_weather" });
    assert.deepEqual(request.responseFormat, {
      type: "json_schema",
      name: "answer",
      schema: { type: "object" },
      strict: false,
    });
    assert.equal(request.maxTokens, 64);
    assert.equal(request.temperature, 1);
    assert.equal(request.topP, 0.5);
    assert.equal(request.user, "u-1");
    assert.equal(request.stream, true);
    const simple = responsesFormat.parseRequest({
      input: "x",
      tool_choice: "none",
      text: { format: { type: "json_object" } },
    });
    assert.deepEqual(simple.request.toolChoice, { type: "none" });
    assert.deepEqual(simple.request.responseFormat, { type: "json_object" });
  });

  it("accepts an empty input only when continuing a previous response", () => {
    const { request } = responsesFormat.parseRequest({ previous_response_id: "resp_1", input: [] });
    assert.deepEqual(request.messages, []);
    rejects({ input: [] }, /`input` must contain at least one message/);
    rejects({}, /`input` must contain at least one message/);
  });

  it("rejects wrong types with a message naming the field", () => {
    rejects(null, /body must be a JSON object/);
    rejects({ input: 5 }, /`input` must be a string or an array/);
    rejects({ input: [7] }, /`input\[0\]` must be an object/);
    rejects({ input: [{ role: "user" }] }, /`input\[0\]\.content`/);
    rejects({ input: [{ role: "tool", content: "x" }] }, /`input\[0\]\.role` must be one of/);
    rejects({ input: [{ role: 3, content: "x" }] }, /`input\[0\]\.role` must be a string/);
    rejects({ input: [{ type: "item_reference", id: "x" }] }, /`input\[0\]\.type`/);
    rejects(
      { input: [{ role: "user", content: [{ type: "input_audio" }] }] },
      /`input\[0\]\.content\[0\]\.type`/,
    );
    rejects({ input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] }, /input_file/);
    rejects({ input: [{ role: "user", content: [{ type: "input_image", file_id: "f" }] }] }, /file_id/);
    rejects(
      { input: [{ role: "assistant", content: [{ type: "input_image", image_url: "u" }] }] },
      /images are only accepted in user messages/,
    );
    rejects({ input: [{ type: "function_call", call_id: "c", name: "f" }] }, /`input\[0\]\.arguments`/);
    rejects({ input: [{ type: "function_call_output", output: "x" }] }, /`input\[0\]\.call_id`/);
    rejects({ input: [{ type: "function_call_output", call_id: "c", output: 4 }] }, /`input\[0\]\.output`/);
    rejects({ input: "x", instructions: 1 }, /`instructions` must be a string/);
    rejects({ input: "x", max_output_tokens: -1 }, /`max_output_tokens` must be a positive integer/);
    rejects({ input: "x", temperature: "1" }, /`temperature` must be a number/);
    rejects({ input: "x", stream: 1 }, /`stream` must be a boolean/);
    rejects({ input: "x", store: "no" }, /`store` must be a boolean/);
    rejects({ input: "x", previous_response_id: 1 }, /`previous_response_id` must be a string/);
    rejects(
      { input: "x", tools: [{ type: "web_search" }] },
      /`tools\[0\]\.type` "web_search" is not supported/,
    );
    rejects({ input: "x", tools: [{ type: "function" }] }, /`tools\[0\]\.name`/);
    rejects({ input: "x", tool_choice: { type: "function" } }, /`tool_choice\.name`/);
    rejects({ input: "x", text: "json" }, /`text` must be an object/);
    rejects({ input: "x", text: { format: { type: "json_schema" } } }, /`text\.format\.name`/);
    rejects({ input: "x", text: { format: { type: "xml" } } }, /`text\.format\.type`/);
  });
});

describe("responses format: renderResponse and stream encoder", () => {
  const context = { id: "resp_abc", model: "gpt-4.1", created: 5 };
  const usage = { inputTokens: 10, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 0 };

  it("renders output items with ids derived from the response id", () => {
    const body = responsesFormat.renderResponse(
      {
        id: "u",
        model: "m",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
          { type: "tool_call", id: "call_1", name: "f", arguments: "{}" },
        ],
        stopReason: "tool_calls",
        usage,
      },
      context,
    ) as Record<string, unknown>;
    assert.deepEqual(body.output, [
      {
        type: "message",
        id: "msg_abc_0",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "ab", annotations: [], logprobs: [] }],
      },
      {
        type: "function_call",
        id: "fc_abc_1",
        call_id: "call_1",
        name: "f",
        arguments: "{}",
        status: "completed",
      },
    ]);
    assert.equal(body.status, "completed");
    assert.equal(body.error, null);
    assert.equal(body.incomplete_details, null);
    assert.deepEqual(body.usage, {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 13,
    });
    assert.deepEqual(body.tools, []);
    assert.equal(body.tool_choice, "auto");
  });

  it("streams named events whose type matches the event name, with increasing sequence numbers", () => {
    const frames = parseSse(encodeStream(responsesFormat.createStreamEncoder(context), TEXT_STREAM));
    const sequence = frames.map((frame) => (frame.data as { sequence_number: number }).sequence_number);
    assert.deepEqual(
      sequence,
      sequence.map((_, index) => index),
    );
    for (const frame of frames) {
      if (frame.event !== "trace") assert.equal((frame.data as { type: string }).type, frame.event);
    }
    assert.deepEqual(
      frames.map((frame) => frame.event),
      [
        "response.created",
        "response.in_progress",
        "trace",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ],
    );
  });

  it("ends a length-cut stream with response.incomplete", () => {
    const encoder = responsesFormat.createStreamEncoder(context);
    const frames = parseSse(
      encoder.event({ type: "text", text: "x" }) +
        encoder.event({ type: "finish", stopReason: "length" }) +
        encoder.end(),
    );
    const last = frames.at(-1);
    assert.equal(last?.event, "response.incomplete");
    const response = (last!.data as { response: Record<string, unknown> }).response;
    assert.equal(response.status, "incomplete");
    assert.deepEqual(response.incomplete_details, { reason: "max_output_tokens" });
    assert.equal(response.usage, null, "no usage event: no usage invented");
  });

  it("writes error (flat and nested fields) then response.failed", () => {
    const encoder = responsesFormat.createStreamEncoder(context);
    encoder.event({ type: "start", id: "u", model: "m" });
    encoder.event({ type: "text", text: "partial" });
    const frames = parseSse(
      encoder.error({ message: "boom", type: "upstream_error", code: "upstream_error" }),
    );
    assert.deepEqual(
      frames.map((frame) => frame.event),
      ["error", "response.failed"],
    );
    const error = frames[0]?.data as Record<string, unknown>;
    assert.equal(error.type, "error");
    assert.equal(error.code, "upstream_error");
    assert.equal(error.message, "boom");
    assert.equal(error.param, null);
    assert.deepEqual(error.error, {
      type: "upstream_error",
      code: "upstream_error",
      message: "boom",
      param: null,
    });
    const failed = (frames[1]!.data as { response: Record<string, unknown> }).response;
    assert.equal(failed.status, "failed");
    assert.deepEqual(failed.error, { code: "upstream_error", message: "boom" });
    assert.equal((failed.output as Array<{ status: string }>)[0]?.status, "incomplete");
    assert.equal(encoder.end(), "");
    assert.equal(encoder.snapshot().stopReason, "error");
    assert.deepEqual(encoder.snapshot().content, [{ type: "text", text: "partial" }]);
  });

  it("closes a call when text follows it, and keeps late deltas of a finished call", () => {
    const encoder = responsesFormat.createStreamEncoder(context);
    const out =
      encoder.event({ type: "tool_call_start", index: 0, id: "c0", name: "f" }) +
      encoder.event({ type: "tool_call_start", index: 1, id: "c1", name: "g" }) +
      encoder.event({ type: "tool_call_delta", index: 0, arguments: "{}" }) +
      encoder.event({ type: "text", text: "done" }) +
      encoder.end();
    const completed = parseSse(out).at(-1)?.data as { response: { output: Array<Record<string, unknown>> } };
    assert.deepEqual(
      completed.response.output.map((item) => [item.type, item.status, item.arguments ?? null]),
      [
        ["function_call", "completed", "{}"],
        ["function_call", "completed", ""],
        ["message", "completed", null],
      ],
    );
  });

  it("renders the error envelope", () => {
    assert.deepEqual(responsesFormat.renderError({ message: "m", type: "t", code: "c" }), {
      error: { message: "m", type: "t", code: "c" },
    });
  });
});
