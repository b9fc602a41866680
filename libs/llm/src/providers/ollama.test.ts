import assert from "node:assert/strict";
import { test } from "node:test";
import { ollamaAdapter } from "./ollama.js";
import {
  assertRefusesWithClearError,
  bodyOf,
  decodeStream,
  GENERATED_ID,
  JPEG_BASE64,
  normalizeIds,
  PNG_BASE64,
  richRequest,
} from "./test-support.js";

const OLLAMA = { baseUrl: "http://localhost:11434", upstreamModel: "llama3.2", apiKey: null };

test("ollama: buildRequest maps the rich request to /api/chat", () => {
  const built = ollamaAdapter.buildRequest(richRequest(), OLLAMA);
  assert.equal(built.url, "http://localhost:11434/api/chat");
  assert.deepEqual(built.headers, { "content-type": "application/json", accept: "application/x-ndjson" });
  assert.deepEqual(bodyOf(built), {
    model: "llama3.2",
    messages: [
      { role: "system", content: "You are a weather assistant." },
      {
        role: "user",
        // Ollama cannot fetch a remote image: its URL stays as text; bytes go in `images`.
        content: "What is the weather in Paris? Here is the sky:\n[image: https://example.com/sky.png]",
        images: [JPEG_BASE64],
      },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [{ function: { name: "get_weather", arguments: { city: "Paris" } } }],
      },
      { role: "tool", tool_name: "get_weather", content: '{"temp_c":18}' },
      { role: "user", content: "Answer in JSON. This one too:", images: [PNG_BASE64] },
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
    format: "json",
    options: { num_predict: 256, temperature: 0.2, top_p: 0.9, stop: ["END"] },
    stream: true,
  });
});

test("ollama: stream false is explicit, schema format, Bearer with a key, tool choice none / named", () => {
  const base = {
    model: "m",
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
    tools: [
      { name: "a", parameters: { type: "object" } },
      { name: "b", parameters: { type: "object" } },
    ],
    stream: false,
  };
  const schema = { type: "object", properties: { age: { type: "integer" } }, required: ["age"] };
  const built = ollamaAdapter.buildRequest(
    {
      ...base,
      responseFormat: { type: "json_schema", name: "p", schema },
      toolChoice: { type: "tool", name: "b" },
    },
    { ...OLLAMA, apiKey: "ollama-key" },
  );
  assert.equal(built.headers.authorization, "Bearer ollama-key");
  assert.equal(built.headers.accept, "application/json");
  const body = bodyOf(built);
  assert.equal(body.stream, false);
  assert.deepEqual(body.format, schema);
  assert.equal(body.options, undefined);
  assert.deepEqual(body.tools, [
    { type: "function", function: { name: "b", parameters: { type: "object" } } },
  ]);
  assert.deepEqual(body.messages, [{ role: "user", content: "hi" }]);
  assert.equal(
    bodyOf(ollamaAdapter.buildRequest({ ...base, toolChoice: { type: "none" } }, OLLAMA)).tools,
    undefined,
  );
});

test("ollama: parseResponse of the documented tool-call answer", () => {
  const response = normalizeIds(
    ollamaAdapter.parseResponse({
      model: "llama3.2",
      created_at: "2024-07-22T20:33:28.123648Z",
      message: {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            function: {
              name: "get_current_weather",
              arguments: { format: "celsius", location: "Paris, FR" },
            },
          },
        ],
      },
      done_reason: "stop",
      done: true,
      total_duration: 885095291,
      load_duration: 3753500,
      prompt_eval_count: 122,
      prompt_eval_duration: 328493000,
      eval_count: 33,
      eval_duration: 552222000,
    }),
  );
  assert.deepEqual(response, {
    id: "",
    model: "llama3.2",
    content: [
      {
        type: "tool_call",
        id: GENERATED_ID,
        name: "get_current_weather",
        arguments: '{"format":"celsius","location":"Paris, FR"}',
      },
    ],
    stopReason: "tool_calls",
    usage: { inputTokens: 122, outputTokens: 33, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test("ollama: text answer with length stop; an id on a tool call is kept", () => {
  const response = ollamaAdapter.parseResponse({
    model: "llama3.2",
    created_at: "2023-12-12T14:13:43.416799Z",
    message: { role: "assistant", content: "Hello! How are you today?" },
    done: true,
    done_reason: "length",
    prompt_eval_count: 26,
    eval_count: 298,
  });
  assert.deepEqual(response.content, [{ type: "text", text: "Hello! How are you today?" }]);
  assert.equal(response.stopReason, "length");
  assert.deepEqual(response.usage, {
    inputTokens: 26,
    outputTokens: 298,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
  const withId = ollamaAdapter.parseResponse({
    model: "qwen3",
    message: {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_x1", function: { index: 0, name: "f", arguments: {} } }],
    },
    done: true,
    done_reason: "stop",
  });
  assert.deepEqual(withId.content, [{ type: "tool_call", id: "call_x1", name: "f", arguments: "{}" }]);
});

test("ollama: parseResponse refuses bodies of the wrong shape with a clear Error", () => {
  assertRefusesWithClearError(ollamaAdapter, [
    { model: "m", done: true },
    { error: "model 'x' not found" },
    { message: "hi" },
  ]);
});

test("ollama: documented NDJSON text stream decodes in any chunking", () => {
  const stream = [
    '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","message":{"role":"assistant","content":"The","images":null},"done":false}',
    '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","message":{"role":"assistant","content":" sky is blue."},"done":false}',
    '{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}',
  ]
    .map((line) => `${line}\n`)
    .join("");
  assert.deepEqual(decodeStream(ollamaAdapter, stream), [
    { type: "start", id: "", model: "llama3.2" },
    { type: "text", text: "The" },
    { type: "text", text: " sky is blue." },
    { type: "finish", stopReason: "stop" },
    { type: "usage", usage: { inputTokens: 26, outputTokens: 282, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
});

test("ollama: streamed tool calls (whole, since 0.8) become start + delta, then a tool stop", () => {
  const stream = [
    '{"model":"qwen3","created_at":"2025-05-27T22:54:57.641643Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_current_weather","arguments":{"format":"celsius","location":"Toronto"}}}]},"done":false}',
    '{"model":"qwen3","created_at":"2025-05-27T22:54:58.100509Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":2922806458,"prompt_eval_count":199,"eval_count":35}',
  ].join("\n");
  assert.deepEqual(decodeStream(ollamaAdapter, stream), [
    { type: "start", id: "", model: "qwen3" },
    { type: "tool_call_start", index: 0, id: GENERATED_ID, name: "get_current_weather" },
    { type: "tool_call_delta", index: 0, arguments: '{"format":"celsius","location":"Toronto"}' },
    { type: "finish", stopReason: "tool_calls" },
    { type: "usage", usage: { inputTokens: 199, outputTokens: 35, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
});

test("ollama: an error line mid-stream throws with its message; a broken line throws malformed", () => {
  const decoder = ollamaAdapter.createStreamDecoder();
  decoder.push('{"model":"llama3.2","message":{"role":"assistant","content":"The"},"done":false}\n');
  assert.throws(
    () => decoder.push('{"error":"an error was encountered while running the model: unexpected EOF"}\n'),
    /^ProviderError: ollama: an error was encountered while running the model: unexpected EOF$/,
  );
  assert.throws(
    () => ollamaAdapter.createStreamDecoder().push("{nope\n"),
    /^ProviderError: ollama: NDJSON stream: line is not JSON/,
  );
});

test("ollama: errorMessage reads {error}", () => {
  assert.equal(
    ollamaAdapter.errorMessage(
      404,
      JSON.stringify({ error: "model 'llama9' not found, try pulling it first" }),
    ),
    "model 'llama9' not found, try pulling it first",
  );
  assert.equal(ollamaAdapter.errorMessage(500, ""), "Ollama returned HTTP 500");
  assert.equal(ollamaAdapter.defaultBaseUrl, "http://localhost:11434");
});
