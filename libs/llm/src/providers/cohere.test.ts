import assert from "node:assert/strict";
import { test } from "node:test";
import { cohereAdapter } from "./cohere.js";
import {
  assertRefusesWithClearError,
  bodyOf,
  decodeStream,
  JPEG_BASE64,
  PNG_BASE64,
  richRequest,
  sseFrames,
  TARGET,
} from "./test-support.js";

const COHERE = { ...TARGET, baseUrl: "https://api.cohere.com" };

test("cohere: buildRequest maps the rich request to v2 Chat", () => {
  const built = cohereAdapter.buildRequest(richRequest(), COHERE);
  assert.equal(built.url, "https://api.cohere.com/v2/chat");
  assert.deepEqual(built.headers, {
    "content-type": "application/json",
    accept: "text/event-stream",
    authorization: "Bearer sk-test",
  });
  assert.deepEqual(bodyOf(built), {
    model: "upstream-model",
    messages: [
      { role: "system", content: "You are a weather assistant." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is the weather in Paris? Here is the sky:" },
          { type: "image_url", image_url: { url: "https://example.com/sky.png" } },
          { type: "image_url", image_url: { url: `data:image/jpeg;base64,${JPEG_BASE64}` } },
        ],
      },
      {
        // With tool calls the assistant's words are its tool plan.
        role: "assistant",
        tool_plan: "Let me check.",
        tool_calls: [
          {
            id: "call_abc123",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_abc123", content: '{"temp_c":18}' },
      {
        role: "user",
        content: [
          { type: "text", text: "Answer in JSON. This one too:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        ],
      },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather for a city",
          parameters: {
            type: "object",
            properties: { city: { type: "string", description: "City name" } },
            required: ["city"],
            additionalProperties: false,
          },
        },
      },
    ],
    tool_choice: "REQUIRED",
    max_tokens: 256,
    temperature: 0.2,
    p: 0.9,
    stop_sequences: ["END"],
    response_format: { type: "json_object" },
    stream: true,
  });
});

test("cohere: named tool keeps only that tool, none is NONE, auto is default, json_schema, stream false", () => {
  const tools = [
    { name: "a", parameters: { type: "object" } },
    { name: "b", parameters: { type: "object" } },
  ];
  const base = {
    model: "m",
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
    tools,
  };
  const named = bodyOf(
    cohereAdapter.buildRequest({ ...base, toolChoice: { type: "tool", name: "b" }, stream: false }, COHERE),
  );
  assert.deepEqual(named.tools, [
    { type: "function", function: { name: "b", parameters: { type: "object" } } },
  ]);
  assert.equal(named.tool_choice, "REQUIRED");
  assert.equal(named.stream, false);
  assert.deepEqual(named.messages, [{ role: "user", content: "hi" }]);
  assert.equal(
    bodyOf(cohereAdapter.buildRequest({ ...base, toolChoice: { type: "none" }, stream: false }, COHERE))
      .tool_choice,
    "NONE",
  );
  assert.equal(
    bodyOf(cohereAdapter.buildRequest({ ...base, toolChoice: { type: "auto" }, stream: false }, COHERE))
      .tool_choice,
    undefined,
  );
  const schema = { type: "object", properties: { a: { type: "string" } } };
  assert.deepEqual(
    bodyOf(
      cohereAdapter.buildRequest(
        { ...base, responseFormat: { type: "json_schema", name: "x", schema }, stream: false },
        COHERE,
      ),
    ).response_format,
    { type: "json_object", json_schema: schema },
  );
});

test("cohere: parseResponse of a recorded tool-call answer; billed units are the usage", () => {
  const response = cohereAdapter.parseResponse({
    id: "f201af17-e24a-4396-8f6a-98e8bf9c3432",
    message: {
      role: "assistant",
      tool_plan:
        "I will use the weather tool to find out the weather in San Francisco. I will also use the cityAttractions tool to find out what attractions are in San Francisco.",
      tool_calls: [
        {
          id: "weather_dqgshstja6p9",
          type: "function",
          function: { name: "weather", arguments: '{"location":"San Francisco"}' },
        },
        {
          id: "cityAttractions_dcxfx4myvx68",
          type: "function",
          function: { name: "cityAttractions", arguments: '{"city":"San Francisco"}' },
        },
      ],
    },
    finish_reason: "TOOL_CALL",
    usage: {
      billed_units: { input_tokens: 119, output_tokens: 52 },
      tokens: { input_tokens: 1549, output_tokens: 103 },
      cached_tokens: 992,
    },
  });
  assert.deepEqual(response, {
    id: "f201af17-e24a-4396-8f6a-98e8bf9c3432",
    model: "",
    content: [
      {
        type: "tool_call",
        id: "weather_dqgshstja6p9",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      },
      {
        type: "tool_call",
        id: "cityAttractions_dcxfx4myvx68",
        name: "cityAttractions",
        arguments: '{"city":"San Francisco"}',
      },
    ],
    stopReason: "tool_calls",
    usage: { inputTokens: 119, outputTokens: 52, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test("cohere: text answer, stop reasons, `null` arguments, tokens when billed units are absent", () => {
  const answer = (finish_reason: string, extra: Record<string, unknown> = {}) =>
    cohereAdapter.parseResponse({
      id: "1f476b96-75b3-4223-a19b-cccf591d161c",
      message: { role: "assistant", content: [{ type: "text", text: "OK." }], ...extra },
      finish_reason,
      usage: { tokens: { input_tokens: 500, output_tokens: 5 }, cached_tokens: 448 },
    });
  const text = answer("MAX_TOKENS");
  assert.deepEqual(text.content, [{ type: "text", text: "OK." }]);
  assert.equal(text.stopReason, "length");
  assert.deepEqual(text.usage, {
    inputTokens: 500,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
  assert.equal(answer("COMPLETE").stopReason, "stop");
  assert.equal(answer("STOP_SEQUENCE").stopReason, "stop");
  assert.equal(answer("ERROR").stopReason, "error");
  const nullArgs = answer("TOOL_CALL", {
    tool_calls: [{ id: "t", type: "function", function: { name: "now", arguments: "null" } }],
  });
  assert.deepEqual(nullArgs.content[1], { type: "tool_call", id: "t", name: "now", arguments: "{}" });
});

test("cohere: parseResponse refuses bodies of the wrong shape with a clear Error", () => {
  assertRefusesWithClearError(cohereAdapter, [{ message: "text" }, { id: "x", finish_reason: "COMPLETE" }]);
});

/** A recorded v2 tool-call stream (tool plan shortened), framed with `event:` lines. */
const TOOL_STREAM_EVENTS: Array<Record<string, unknown>> = [
  {
    id: "2941521a-b87a-45f6-9b0d-235fd66c3025",
    type: "message-start",
    delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } },
  },
  { type: "tool-plan-delta", delta: { message: { tool_plan: "I will use the weather tool." } } },
  {
    type: "tool-call-start",
    index: 0,
    delta: {
      message: {
        tool_calls: {
          id: "weather_e8p4pn45zt0t",
          type: "function",
          function: { name: "weather", arguments: "" },
        },
      },
    },
  },
  {
    type: "tool-call-delta",
    index: 0,
    delta: { message: { tool_calls: { function: { arguments: '{"' } } } },
  },
  {
    type: "tool-call-delta",
    index: 0,
    delta: { message: { tool_calls: { function: { arguments: "location" } } } },
  },
  {
    type: "tool-call-delta",
    index: 0,
    delta: { message: { tool_calls: { function: { arguments: '": "San Francisco"}' } } } },
  },
  { type: "tool-call-end", index: 0 },
  {
    type: "tool-call-start",
    index: 1,
    delta: {
      message: {
        tool_calls: {
          id: "cityAttractions_pyxssbwnq9fq",
          type: "function",
          function: { name: "cityAttractions", arguments: "" },
        },
      },
    },
  },
  {
    type: "tool-call-delta",
    index: 1,
    delta: { message: { tool_calls: { function: { arguments: '{"city": "San Francisco"}' } } } },
  },
  { type: "tool-call-end", index: 1 },
  {
    type: "message-end",
    delta: {
      finish_reason: "TOOL_CALL",
      usage: {
        billed_units: { input_tokens: 119, output_tokens: 44 },
        tokens: { input_tokens: 1549, output_tokens: 95 },
        cached_tokens: 1504,
      },
    },
  },
];

test("cohere: recorded tool-call stream decodes in any chunking", () => {
  const stream = sseFrames(TOOL_STREAM_EVENTS.map((data) => ({ event: String(data.type), data })));
  assert.deepEqual(decodeStream(cohereAdapter, stream), [
    { type: "start", id: "2941521a-b87a-45f6-9b0d-235fd66c3025", model: "" },
    { type: "tool_call_start", index: 0, id: "weather_e8p4pn45zt0t", name: "weather" },
    { type: "tool_call_delta", index: 0, arguments: '{"' },
    { type: "tool_call_delta", index: 0, arguments: "location" },
    { type: "tool_call_delta", index: 0, arguments: '": "San Francisco"}' },
    { type: "tool_call_start", index: 1, id: "cityAttractions_pyxssbwnq9fq", name: "cityAttractions" },
    { type: "tool_call_delta", index: 1, arguments: '{"city": "San Francisco"}' },
    { type: "finish", stopReason: "tool_calls" },
    { type: "usage", usage: { inputTokens: 119, outputTokens: 44, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
});

test("cohere: recorded text stream (data-only framing, thinking skipped, trailing [DONE])", () => {
  const stream = sseFrames([
    {
      data: {
        id: "321d178c-2c12-44d3-ae42-2f5510f6b1cc",
        type: "message-start",
        delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } },
      },
    },
    {
      data: {
        type: "content-start",
        index: 0,
        delta: { message: { content: { type: "thinking", thinking: "" } } },
      },
    },
    {
      data: {
        type: "content-delta",
        index: 0,
        delta: { message: { content: { thinking: "Capital of France..." } } },
      },
    },
    { data: { type: "content-end", index: 0 } },
    {
      data: { type: "content-start", index: 1, delta: { message: { content: { type: "text", text: "" } } } },
    },
    { data: { type: "content-delta", index: 1, delta: { message: { content: { text: "The" } } } } },
    {
      data: {
        type: "content-delta",
        index: 1,
        delta: { message: { content: { text: " capital of France is Paris." } } },
      },
    },
    { data: { type: "content-end", index: 1 } },
    {
      data: {
        type: "message-end",
        delta: {
          finish_reason: "COMPLETE",
          usage: {
            billed_units: { input_tokens: 12, output_tokens: 7 },
            tokens: { input_tokens: 507, output_tokens: 10 },
            cached_tokens: 448,
          },
        },
      },
    },
    { data: "[DONE]" },
  ]);
  assert.deepEqual(decodeStream(cohereAdapter, stream), [
    { type: "start", id: "321d178c-2c12-44d3-ae42-2f5510f6b1cc", model: "" },
    { type: "text", text: "The" },
    { type: "text", text: " capital of France is Paris." },
    { type: "finish", stopReason: "stop" },
    { type: "usage", usage: { inputTokens: 12, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
});

test("cohere: errorMessage reads {id, message}", () => {
  assert.equal(
    cohereAdapter.errorMessage(
      401,
      JSON.stringify({ id: "0d8d4a8e-9a1f-4a57-a0f4-2b0e8b5c1e3f", message: "invalid api token" }),
    ),
    "invalid api token",
  );
  assert.equal(cohereAdapter.errorMessage(429, "not json"), "Cohere returned HTTP 429: not json");
});
