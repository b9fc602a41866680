import assert from "node:assert/strict";
import { test } from "node:test";
import { geminiAdapter } from "./gemini.js";
import { geminiSchema } from "./gemini-schema.js";
import {
  assertRefusesWithClearError,
  bodyOf,
  decodeStream,
  GENERATED_ID,
  JPEG_BASE64,
  normalizeIds,
  PNG_BASE64,
  richRequest,
  TARGET,
} from "./test-support.js";

const GEMINI = {
  baseUrl: "https://generativelanguage.googleapis.com/v1beta",
  upstreamModel: "gemini-2.5-flash",
  apiKey: "AIza-test",
};

test("gemini: buildRequest maps the rich request to generateContent", () => {
  const built = geminiAdapter.buildRequest(richRequest(), GEMINI);
  assert.equal(
    built.url,
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
  );
  assert.deepEqual(built.headers, {
    "content-type": "application/json",
    accept: "text/event-stream",
    "x-goog-api-key": "AIza-test",
  });
  assert.deepEqual(bodyOf(built), {
    systemInstruction: { parts: [{ text: "You are a weather assistant." }] },
    contents: [
      {
        role: "user",
        parts: [
          { text: "What is the weather in Paris? Here is the sky:" },
          { fileData: { mimeType: "image/png", fileUri: "https://example.com/sky.png" } },
          { inlineData: { mimeType: "image/jpeg", data: JPEG_BASE64 } },
        ],
      },
      {
        role: "model",
        parts: [
          { text: "Let me check." },
          { functionCall: { id: "call_abc123", name: "get_weather", args: { city: "Paris" } } },
        ],
      },
      {
        // The tool result (its name found from the call with the same id) and the next user turn merge.
        role: "user",
        parts: [
          {
            functionResponse: {
              id: "call_abc123",
              name: "get_weather",
              response: { output: '{"temp_c":18}' },
            },
          },
          { text: "Answer in JSON. This one too:" },
          { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
        ],
      },
    ],
    tools: [
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Current weather for a city",
            // additionalProperties is outside Gemini's schema subset and is dropped.
            parameters: {
              type: "object",
              properties: { city: { type: "string", description: "City name" } },
              required: ["city"],
            },
          },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: "ANY" } },
    generationConfig: {
      maxOutputTokens: 256,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ["END"],
      responseMimeType: "application/json",
    },
  });
});

test("gemini: non-streaming URL, named tool, json_schema, error results, no parameters, no key", () => {
  const built = geminiAdapter.buildRequest(
    {
      model: "m",
      messages: [
        { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "ping", arguments: "" }] },
        {
          role: "tool",
          content: [
            {
              type: "tool_result",
              toolCallId: "c1",
              name: "ping",
              content: [{ type: "text", text: "down" }],
              isError: true,
            },
          ],
        },
      ],
      tools: [{ name: "ping", parameters: { type: "object", properties: {} } }],
      toolChoice: { type: "tool", name: "ping" },
      responseFormat: {
        type: "json_schema",
        name: "r",
        schema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { status: { $ref: "#/$defs/Status" }, note: { type: ["string", "null"] } },
          required: ["status"],
          additionalProperties: false,
          $defs: { Status: { type: "string", enum: ["up", "down"] } },
        },
      },
      stream: false,
    },
    { ...GEMINI, upstreamModel: "models/gemini-2.0-flash", apiKey: null },
  );
  assert.equal(
    built.url,
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent",
  );
  assert.equal(built.headers["x-goog-api-key"], undefined);
  assert.deepEqual(bodyOf(built), {
    contents: [
      { role: "model", parts: [{ functionCall: { id: "c1", name: "ping", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { id: "c1", name: "ping", response: { error: "down" } } }],
      },
    ],
    tools: [{ functionDeclarations: [{ name: "ping" }] }],
    toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["ping"] } },
    generationConfig: {
      responseMimeType: "application/json",
      responseSchema: {
        type: "object",
        properties: {
          status: { type: "string", enum: ["up", "down"] },
          note: { type: "string", nullable: true },
        },
        required: ["status"],
      },
    },
  });
});

test("gemini: Gemini 3 replays calls with the documented signature sentinel; Gemma gets the system text inline", () => {
  const gemini3 = bodyOf(
    geminiAdapter.buildRequest(richRequest(), { ...GEMINI, upstreamModel: "gemini-3-pro-preview" }),
  );
  const model = (gemini3.contents as Array<{ parts: Array<Record<string, unknown>> }>)[1];
  assert.deepEqual(model?.parts[1], {
    functionCall: { id: "call_abc123", name: "get_weather", args: { city: "Paris" } },
    thoughtSignature: "skip_thought_signature_validator",
  });
  const gemma = bodyOf(
    geminiAdapter.buildRequest(richRequest(), { ...GEMINI, upstreamModel: "gemma-3-27b-it" }),
  );
  assert.equal(gemma.systemInstruction, undefined);
  const first = (gemma.contents as Array<{ parts: Array<Record<string, unknown>> }>)[0];
  assert.deepEqual(first?.parts[0], { text: "You are a weather assistant.\n\n" });
});

test("gemini: a tool result whose name cannot be resolved is refused clearly", () => {
  assert.throws(
    () =>
      geminiAdapter.buildRequest(
        {
          model: "m",
          messages: [{ role: "tool", content: [{ type: "tool_result", toolCallId: "lost", content: [] }] }],
          stream: false,
        },
        GEMINI,
      ),
    /gemini: the tool result for call "lost" has no tool name/,
  );
  assert.deepEqual(
    bodyOf(
      geminiAdapter.buildRequest(
        {
          model: "m",
          toolChoice: { type: "none" },
          tools: [{ name: "f", parameters: {} }],
          messages: [],
          stream: false,
        },
        TARGET,
      ),
    ).toolConfig,
    { functionCallingConfig: { mode: "NONE" } },
  );
});

test("gemini: schema conversion keeps the OpenAPI subset", () => {
  assert.deepEqual(
    geminiSchema({
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, minItems: 1 },
        kind: { const: "a" },
        maybe: { anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }] },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
        tree: { $ref: "#/definitions/Node" },
      },
      definitions: { Node: { type: "object", properties: { child: { $ref: "#/definitions/Node" } } } },
    }),
    {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, minItems: 1 },
        kind: { enum: ["a"] },
        maybe: { type: "integer", minimum: 0, nullable: true },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        // Recursive: unrolled three $refs deep, then a plain object.
        tree: {
          type: "object",
          properties: {
            child: {
              type: "object",
              properties: { child: { type: "object", properties: { child: { type: "object" } } } },
            },
          },
        },
      },
    },
  );
});

test("gemini: parseResponse of a Gemini 3 function call (STOP + call = tool stop, thoughts are output)", () => {
  const response = normalizeIds(
    geminiAdapter.parseResponse({
      candidates: [
        {
          content: {
            parts: [
              {
                functionCall: { name: "weather", args: { location: "San Francisco" } },
                thoughtSignature:
                  "Eqo+Cqc+Ab4+9vtgONaaz6qwy6WXdp7gCd2w0X+Wz2gaBgY0Gv6A12JKo0y5vQwf9YQFyhMbKr1E9m17VT6HXd7jXzjaGYaE",
              },
            ],
            role: "model",
          },
          finishReason: "STOP",
          index: 0,
          finishMessage: "Model generated function call(s).",
        },
      ],
      usageMetadata: {
        promptTokenCount: 29,
        candidatesTokenCount: 15,
        totalTokenCount: 1845,
        promptTokensDetails: [{ modality: "TEXT", tokenCount: 29 }],
        thoughtsTokenCount: 1801,
      },
      modelVersion: "gemini-3-pro-preview",
      responseId: "JniLacKqGqH0xs0P0O776As",
    }),
  );
  assert.deepEqual(response, {
    id: "JniLacKqGqH0xs0P0O776As",
    model: "gemini-3-pro-preview",
    content: [
      { type: "tool_call", id: GENERATED_ID, name: "weather", arguments: '{"location":"San Francisco"}' },
    ],
    stopReason: "tool_calls",
    usage: { inputTokens: 29, outputTokens: 1816, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test("gemini: text with cached content, thought parts skipped, stop reasons, blocked prompt", () => {
  const response = geminiAdapter.parseResponse({
    candidates: [
      {
        content: {
          parts: [{ text: "Thinking about it", thought: true }, { text: "Paris is sunny." }],
          role: "model",
        },
        finishReason: "MAX_TOKENS",
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 2100,
      cachedContentTokenCount: 2048,
      candidatesTokenCount: 4,
      totalTokenCount: 2104,
    },
    modelVersion: "gemini-2.5-flash",
    responseId: "r1",
  });
  assert.deepEqual(response.content, [{ type: "text", text: "Paris is sunny." }]);
  assert.equal(response.stopReason, "length");
  assert.deepEqual(response.usage, {
    inputTokens: 2100,
    outputTokens: 4,
    cacheReadTokens: 2048,
    cacheWriteTokens: 0,
  });
  const finish = (finishReason: string) =>
    geminiAdapter.parseResponse({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason }] })
      .stopReason;
  assert.equal(finish("SAFETY"), "content_filter");
  assert.equal(finish("RECITATION"), "content_filter");
  assert.equal(finish("MALFORMED_FUNCTION_CALL"), "error");
  assert.equal(finish("STOP"), "stop");
  const blocked = geminiAdapter.parseResponse({
    promptFeedback: { blockReason: "SAFETY", safetyRatings: [] },
    usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
    modelVersion: "gemini-2.5-flash",
  });
  assert.deepEqual(blocked, {
    id: "",
    model: "gemini-2.5-flash",
    content: [],
    stopReason: "content_filter",
    usage: { inputTokens: 8, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test("gemini: parseResponse refuses bodies of the wrong shape with a clear Error", () => {
  assertRefusesWithClearError(geminiAdapter, [
    { candidates: "x" },
    { candidates: [] },
    { candidates: [null] },
  ]);
});

/** A recorded gemini-3-pro-preview text stream (alt=sse, CRLF framing; the signature shortened). */
const TEXT_STREAM = [
  '{"candidates":[{"content":{"parts":[{"text":"There are **3**"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":5,"totalTokenCount":199,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":185},"modelVersion":"gemini-3-pro-preview","responseId":"bH6LaZW8Fp_3nsEPqtaSwQ4"}',
  '{"candidates":[{"content":{"parts":[{"text":" \\"r\\"s in strawberry.\\n\\nst**r**awbe**rr**y"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":23,"totalTokenCount":217,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":185},"modelVersion":"gemini-3-pro-preview","responseId":"bH6LaZW8Fp_3nsEPqtaSwQ4"}',
  '{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"EqsFCqgFAb4+9vvtAF5n87lB4OGDOoTRMOqp35jW65XsYXh6BySMwl9nvrbAvPcl2U0xITaYUyV4"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":23,"totalTokenCount":217,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":185},"modelVersion":"gemini-3-pro-preview","responseId":"bH6LaZW8Fp_3nsEPqtaSwQ4"}',
]
  .map((chunk) => `data: ${chunk}\r\n\r\n`)
  .join("");

test("gemini: recorded text stream decodes in any chunking; the last usageMetadata is the usage", () => {
  assert.deepEqual(decodeStream(geminiAdapter, TEXT_STREAM), [
    { type: "start", id: "bH6LaZW8Fp_3nsEPqtaSwQ4", model: "gemini-3-pro-preview" },
    { type: "text", text: "There are **3**" },
    { type: "text", text: ' "r"s in strawberry.\n\nst**r**awbe**rr**y' },
    { type: "finish", stopReason: "stop" },
    { type: "usage", usage: { inputTokens: 9, outputTokens: 208, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
});

test("gemini: a streamed function call arrives whole: start + one delta, then a tool stop", () => {
  const stream = [
    '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"weather","args":{"location":"San Francisco"}},"thoughtSignature":"EpEgCo4gAb4+9vvWwdN+NkNi"},{"functionCall":{"name":"cityAttractions","args":{"city":"San Francisco"}}}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"totalTokenCount":848,"thoughtsTokenCount":804},"modelVersion":"gemini-3-pro-preview","responseId":"QHiLaa6LBrb8vdIPoNztsAg"}',
    '{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"totalTokenCount":848,"thoughtsTokenCount":804},"modelVersion":"gemini-3-pro-preview","responseId":"QHiLaa6LBrb8vdIPoNztsAg"}',
  ]
    .map((chunk) => `data: ${chunk}\n\n`)
    .join("");
  assert.deepEqual(decodeStream(geminiAdapter, stream), [
    { type: "start", id: "QHiLaa6LBrb8vdIPoNztsAg", model: "gemini-3-pro-preview" },
    { type: "tool_call_start", index: 0, id: GENERATED_ID, name: "weather" },
    { type: "tool_call_delta", index: 0, arguments: '{"location":"San Francisco"}' },
    { type: "tool_call_start", index: 1, id: GENERATED_ID, name: "cityAttractions" },
    { type: "tool_call_delta", index: 1, arguments: '{"city":"San Francisco"}' },
    { type: "finish", stopReason: "tool_calls" },
    { type: "usage", usage: { inputTokens: 29, outputTokens: 819, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
  // Made-up ids differ between calls and between answers.
  const events = geminiAdapter.createStreamDecoder().push(stream);
  const ids = events.flatMap((event) => (event.type === "tool_call_start" ? [event.id] : []));
  assert.equal(new Set(ids).size, 2);
});

test("gemini: an error object in the stream throws with the provider's message", () => {
  const decoder = geminiAdapter.createStreamDecoder();
  assert.throws(
    () =>
      decoder.push(
        'data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}\n\n',
      ),
    /^ProviderError: gemini: The model is overloaded\. Please try again later\.$/,
  );
});

test("gemini: errorMessage reads {error:{code, message, status}}, also array-wrapped", () => {
  const body = {
    error: {
      code: 400,
      message: "API key not valid. Please pass a valid API key.",
      status: "INVALID_ARGUMENT",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
        },
      ],
    },
  };
  assert.equal(
    geminiAdapter.errorMessage(400, JSON.stringify(body)),
    "API key not valid. Please pass a valid API key.",
  );
  assert.equal(
    geminiAdapter.errorMessage(400, JSON.stringify([body])),
    "API key not valid. Please pass a valid API key.",
  );
  assert.equal(geminiAdapter.errorMessage(500, "{}"), "Gemini returned HTTP 500");
});
