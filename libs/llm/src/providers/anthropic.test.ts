import assert from "node:assert/strict";
import { test } from "node:test";
import { anthropicAdapter } from "./anthropic.js";
import {
  assertRefusesWithClearError,
  bodyOf,
  decodeStream,
  JPEG_BASE64,
  PNG_BASE64,
  richRequest,
  TARGET,
} from "./test-support.js";

const ANTHROPIC = { ...TARGET, baseUrl: "https://api.anthropic.com" };

test("anthropic: buildRequest maps the rich request to the Messages API", () => {
  const built = anthropicAdapter.buildRequest(richRequest(), ANTHROPIC);
  assert.equal(built.url, "https://api.anthropic.com/v1/messages");
  assert.deepEqual(built.headers, {
    "content-type": "application/json",
    accept: "text/event-stream",
    "anthropic-version": "2023-06-01",
    "x-api-key": "sk-test",
  });
  assert.deepEqual(bodyOf(built), {
    model: "upstream-model",
    max_tokens: 256,
    system:
      "You are a weather assistant.\n\nRespond with a single valid JSON object and nothing else: no prose, no Markdown code fences.",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "What is the weather in Paris? Here is the sky:" },
          { type: "image", source: { type: "url", url: "https://example.com/sky.png" } },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: JPEG_BASE64 } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "call_abc123", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      {
        // The tool result and the next user turn merge into one user message, results first.
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_abc123",
            content: [{ type: "text", text: '{"temp_c":18}' }],
          },
          { type: "text", text: "Answer in JSON. This one too:" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
        ],
      },
    ],
    tools: [
      {
        name: "get_weather",
        description: "Current weather for a city",
        input_schema: {
          type: "object",
          properties: { city: { type: "string", description: "City name" } },
          required: ["city"],
          additionalProperties: false,
        },
      },
    ],
    tool_choice: { type: "any" },
    stop_sequences: ["END"],
    // top_p is left out when temperature is set (recent models refuse both).
    temperature: 0.2,
    metadata: { user_id: "user-42" },
    stream: true,
  });
});

test("anthropic: default max_tokens, json_schema instruction, named / none choice, errors, ids, no key", () => {
  const built = anthropicAdapter.buildRequest(
    {
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "go" },
            { type: "text", text: "" },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_call", id: "functions.lookup:0", name: "lookup", arguments: "" }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool_result",
              toolCallId: "functions.lookup:0",
              content: [{ type: "text", text: "boom" }],
              isError: true,
            },
          ],
        },
        { role: "user", content: [{ type: "text", text: "again" }] },
      ],
      tools: [{ name: "lookup", parameters: {} }],
      toolChoice: { type: "tool", name: "lookup" },
      topP: 0.5,
      responseFormat: {
        type: "json_schema",
        name: "result",
        schema: { type: "object", properties: { a: { type: "number" } } },
      },
      stream: false,
    },
    { ...ANTHROPIC, apiKey: null },
  );
  assert.equal(built.headers["x-api-key"], undefined);
  assert.equal(built.headers.accept, "application/json");
  const body = bodyOf(built);
  assert.equal(body.max_tokens, 4096);
  assert.equal(body.top_p, 0.5);
  assert.equal(
    body.system,
    'Respond with a single valid JSON object and nothing else: no prose, no Markdown code fences. The object must conform to this JSON schema (named "result"):\n{"type":"object","properties":{"a":{"type":"number"}}}',
  );
  assert.deepEqual(body.tool_choice, { type: "tool", name: "lookup" });
  assert.deepEqual(body.tools, [{ name: "lookup", input_schema: { type: "object" } }]);
  assert.deepEqual(body.messages, [
    { role: "user", content: [{ type: "text", text: "go" }] },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "functions_lookup_0", name: "lookup", input: {} }],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "functions_lookup_0",
          content: [{ type: "text", text: "boom" }],
          is_error: true,
        },
        { type: "text", text: "again" },
      ],
    },
  ]);
  const none = bodyOf(
    anthropicAdapter.buildRequest(
      {
        model: "m",
        messages: [],
        tools: [{ name: "f", parameters: { type: "object" } }],
        toolChoice: { type: "none" },
        stream: false,
      },
      ANTHROPIC,
    ),
  );
  assert.deepEqual(none.tool_choice, { type: "none" });
});

test("anthropic: parseResponse of a documented tool_use answer with cache usage", () => {
  const response = anthropicAdapter.parseResponse({
    id: "msg_01Aq9w938a90dw8q",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [
      { type: "thinking", thinking: "The user wants the weather.", signature: "EqQBCgIYAhIM" },
      { type: "text", text: "I'll check the current weather in San Francisco for you." },
      {
        type: "tool_use",
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        input: { location: "San Francisco, CA", unit: "celsius" },
      },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: {
      input_tokens: 384,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 2048,
      output_tokens: 86,
    },
  });
  assert.deepEqual(response, {
    id: "msg_01Aq9w938a90dw8q",
    model: "claude-sonnet-4-5-20250929",
    content: [
      { type: "text", text: "I'll check the current weather in San Francisco for you." },
      {
        type: "tool_call",
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
      },
    ],
    stopReason: "tool_calls",
    usage: { inputTokens: 2532, outputTokens: 86, cacheReadTokens: 2048, cacheWriteTokens: 100 },
  });
});

test("anthropic: stop reasons", () => {
  const stop = (reason: string | null) =>
    anthropicAdapter.parseResponse({
      id: "m",
      type: "message",
      model: "c",
      content: [{ type: "text", text: "x" }],
      stop_reason: reason,
      usage: { input_tokens: 1, output_tokens: 1 },
    }).stopReason;
  assert.equal(stop("end_turn"), "stop");
  assert.equal(stop("stop_sequence"), "stop");
  assert.equal(stop("pause_turn"), "stop");
  assert.equal(stop("max_tokens"), "length");
  assert.equal(stop("model_context_window_exceeded"), "length");
  assert.equal(stop("refusal"), "content_filter");
  assert.equal(stop(null), "stop");
});

test("anthropic: parseResponse refuses bodies of the wrong shape with a clear Error", () => {
  assertRefusesWithClearError(anthropicAdapter, [
    { type: "message", content: "text" },
    { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  ]);
});

/** The tool-use streaming example of the Messages API docs (thinking omitted), verbatim framing. */
const DOCUMENTED_STREAM = `event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-opus-4-6","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", let's check the weather for San Francisco, CA:"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \\"San Francisco, CA\\""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":", \\"unit\\": \\"fahrenheit\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

`;

test("anthropic: documented stream decodes in any chunking, tool calls counted from 0", () => {
  const expected = [
    { type: "start", id: "msg_014p7gG3wDgGV9EUtLvnow3U", model: "claude-opus-4-6" },
    { type: "text", text: "Okay" },
    { type: "text", text: ", let's check the weather for San Francisco, CA:" },
    { type: "tool_call_start", index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather" },
    { type: "tool_call_delta", index: 0, arguments: '{"location":' },
    { type: "tool_call_delta", index: 0, arguments: ' "San Francisco, CA"' },
    { type: "tool_call_delta", index: 0, arguments: ', "unit": "fahrenheit"}' },
    { type: "finish", stopReason: "tool_calls" },
    { type: "usage", usage: { inputTokens: 472, outputTokens: 89, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ];
  assert.deepEqual(decodeStream(anthropicAdapter, DOCUMENTED_STREAM), expected);
  assert.deepEqual(decodeStream(anthropicAdapter, DOCUMENTED_STREAM.replaceAll("\n", "\r\n")), expected);
});

test("anthropic: thinking blocks are skipped; cache usage from message_start, cumulative message_delta wins", () => {
  const stream = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Done."}}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":42}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join("");
  assert.deepEqual(decodeStream(anthropicAdapter, stream), [
    { type: "start", id: "msg_1", model: "claude-sonnet-4-5" },
    { type: "text", text: "Done." },
    { type: "finish", stopReason: "length" },
    {
      type: "usage",
      usage: { inputTokens: 3210, outputTokens: 42, cacheReadTokens: 3000, cacheWriteTokens: 200 },
    },
  ]);
});

test("anthropic: an error event mid-stream throws with the provider's message", () => {
  const decoder = anthropicAdapter.createStreamDecoder();
  decoder.push(DOCUMENTED_STREAM.slice(0, DOCUMENTED_STREAM.indexOf("event: ping")));
  assert.throws(
    () =>
      decoder.push(
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n',
      ),
    /^ProviderError: anthropic: Overloaded$/,
  );
});

test("anthropic: errorMessage reads {type:error, error:{type, message}}", () => {
  assert.equal(
    anthropicAdapter.errorMessage(
      400,
      JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: "max_tokens: Field required" },
        request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
      }),
    ),
    "max_tokens: Field required",
  );
  assert.equal(anthropicAdapter.errorMessage(529, ""), "Anthropic returned HTTP 529");
});
