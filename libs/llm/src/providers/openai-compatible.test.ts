import assert from "node:assert/strict";
import { test } from "node:test";
import { customAdapter, mistralAdapter, openaiAdapter, xaiAdapter } from "./openai-compatible.js";
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

const TOOLS = [
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
];

test("openai: buildRequest maps the rich request to Chat Completions", () => {
  const built = openaiAdapter.buildRequest(richRequest(), TARGET);
  assert.equal(built.url, "https://upstream.example/v1/chat/completions");
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
        role: "assistant",
        content: "Let me check.",
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
    tools: TOOLS,
    tool_choice: "required",
    max_completion_tokens: 256,
    temperature: 0.2,
    top_p: 0.9,
    stop: ["END"],
    response_format: { type: "json_object" },
    user: "user-42",
    stream: true,
    stream_options: { include_usage: true },
  });
});

test("openai: named tool, json_schema, no stream, plain-string content, no key", () => {
  const built = openaiAdapter.buildRequest(
    {
      model: "m",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "f", parameters: { type: "object", properties: {} } }],
      toolChoice: { type: "tool", name: "f" },
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
      stream: false,
    },
    { ...TARGET, apiKey: null },
  );
  assert.deepEqual(built.headers, { "content-type": "application/json", accept: "application/json" });
  assert.deepEqual(bodyOf(built), {
    model: "upstream-model",
    messages: [{ role: "user", content: "hi" }],
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }],
    tool_choice: { type: "function", function: { name: "f" } },
    response_format: {
      type: "json_schema",
      json_schema: { name: "answer", schema: { type: "object" }, strict: true },
    },
    stream: false,
  });
});

test("openai: a tool_choice without tools is not sent; tool-result images follow the tool messages", () => {
  const built = openaiAdapter.buildRequest(
    {
      model: "m",
      toolChoice: { type: "auto" },
      messages: [
        { role: "user", content: [{ type: "text", text: "shoot" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_call", id: "a", name: "camera", arguments: "{}" },
            { type: "tool_call", id: "b", name: "camera", arguments: "{}" },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool_result",
              toolCallId: "a",
              content: [
                { type: "text", text: "photo 1" },
                { type: "image", base64: PNG_BASE64, mediaType: "image/png" },
              ],
            },
            { type: "tool_result", toolCallId: "b", content: [{ type: "text", text: "photo 2" }] },
          ],
        },
      ],
      stream: false,
    },
    TARGET,
  );
  const body = bodyOf(built);
  assert.equal(body.tool_choice, undefined);
  assert.deepEqual(body.messages, [
    { role: "user", content: "shoot" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "a", type: "function", function: { name: "camera", arguments: "{}" } },
        { id: "b", type: "function", function: { name: "camera", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "a", content: "photo 1" },
    { role: "tool", tool_call_id: "b", content: "photo 2" },
    {
      role: "user",
      content: [
        { type: "text", text: "Images returned by the tool calls above:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      ],
    },
  ]);
});

test("mistral: `any`, max_tokens, no stream_options / user, 9-character ids, string image_url, tool name", () => {
  const built = mistralAdapter.buildRequest(richRequest(), {
    ...TARGET,
    baseUrl: "https://api.mistral.ai/v1",
  });
  assert.equal(built.url, "https://api.mistral.ai/v1/chat/completions");
  const body = bodyOf(built);
  assert.equal(body.tool_choice, "any");
  assert.equal(body.max_tokens, 256);
  assert.equal(body.max_completion_tokens, undefined);
  assert.equal(body.stream_options, undefined);
  assert.equal(body.user, undefined);
  assert.equal(body.stream, true);
  const messages = body.messages as Array<Record<string, unknown>>;
  const assistant = messages[2] as { tool_calls: Array<{ id: string }> };
  const callId = assistant.tool_calls[0]?.id ?? "";
  assert.match(callId, /^[a-zA-Z0-9]{9}$/);
  assert.deepEqual(messages[3], {
    role: "tool",
    tool_call_id: callId,
    name: "get_weather",
    content: '{"temp_c":18}',
  });
  const firstUser = messages[1] as { content: unknown[] };
  assert.deepEqual(firstUser.content[1], {
    type: "image_url",
    image_url: "https://example.com/sky.png",
  });
  // Mistral's own ids pass unchanged.
  const own = mistralAdapter.buildRequest(
    richRequest({
      messages: [
        { role: "assistant", content: [{ type: "tool_call", id: "D681PevKs", name: "f", arguments: "{}" }] },
        { role: "tool", content: [{ type: "tool_result", toolCallId: "D681PevKs", content: [] }] },
      ],
    }),
    TARGET,
  );
  assert.match(own.body, /"id":"D681PevKs"/);
  assert.match(own.body, /"tool_call_id":"D681PevKs"/);
});

test("xai and custom: max_tokens, stream_options, user; custom has no default base URL", () => {
  for (const adapter of [xaiAdapter, customAdapter]) {
    const body = bodyOf(adapter.buildRequest(richRequest(), TARGET));
    assert.equal(body.max_tokens, 256);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.user, "user-42");
    assert.equal(body.tool_choice, "required");
  }
  assert.equal(xaiAdapter.defaultBaseUrl, "https://api.x.ai/v1");
  assert.equal(mistralAdapter.defaultBaseUrl, "https://api.mistral.ai/v1");
  assert.equal(openaiAdapter.defaultBaseUrl, "https://api.openai.com/v1");
  assert.equal(customAdapter.defaultBaseUrl, null);
});

test("openai: parseResponse of a documented tool-call answer with cached tokens", () => {
  const response = openaiAdapter.parseResponse({
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion",
    created: 1741570283,
    model: "gpt-4o-2024-08-06",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_12345xyz",
              type: "function",
              function: { name: "get_weather", arguments: '{"location":"Paris, France"}' },
            },
          ],
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 1117,
      completion_tokens: 46,
      total_tokens: 1163,
      prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
    service_tier: "default",
    system_fingerprint: "fp_fc9f1d7035",
  });
  assert.deepEqual(response, {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    model: "gpt-4o-2024-08-06",
    content: [
      {
        type: "tool_call",
        id: "call_12345xyz",
        name: "get_weather",
        arguments: '{"location":"Paris, France"}',
      },
    ],
    stopReason: "tool_calls",
    usage: { inputTokens: 1117, outputTokens: 46, cacheReadTokens: 1024, cacheWriteTokens: 0 },
  });
});

test("openai-compatible: stop reasons, text parts, refusal, xAI's separate reasoning tokens", () => {
  const answer = (finish: string, message: Record<string, unknown> = { content: "Hi" }, usage?: unknown) =>
    openaiAdapter.parseResponse({
      id: "x",
      model: "m",
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  assert.equal(answer("stop").stopReason, "stop");
  assert.equal(answer("length").stopReason, "length");
  assert.equal(answer("content_filter").stopReason, "content_filter");
  assert.equal(
    mistralAdapter.parseResponse({ choices: [{ message: {}, finish_reason: "model_length" }] }).stopReason,
    "length",
  );
  assert.equal(
    mistralAdapter.parseResponse({ choices: [{ message: {}, finish_reason: "error" }] }).stopReason,
    "error",
  );
  assert.equal(
    answer("stop", { content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "" } }] })
      .stopReason,
    "tool_calls",
  );
  assert.deepEqual(
    answer("stop", {
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
    }).content,
    [{ type: "text", text: "ab" }],
  );
  assert.deepEqual(answer("stop", { content: null, refusal: "I can't help with that." }).content, [
    { type: "text", text: "I can't help with that." },
  ]);
  // xAI documented usage: total = prompt + completion + reasoning, so reasoning is output too.
  const xai = xaiAdapter.parseResponse({
    id: "0daf962f",
    model: "grok-3-mini",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "101 multiplied by 3 is 303." },
        finish_reason: "stop",
      },
    ],
    usage: {
      prompt_tokens: 32,
      completion_tokens: 9,
      total_tokens: 135,
      prompt_tokens_details: { text_tokens: 32, audio_tokens: 0, image_tokens: 0, cached_tokens: 6 },
      completion_tokens_details: { reasoning_tokens: 94, audio_tokens: 0 },
    },
  });
  assert.deepEqual(xai.usage, {
    inputTokens: 32,
    outputTokens: 103,
    cacheReadTokens: 6,
    cacheWriteTokens: 0,
  });
  // OpenAI counts reasoning inside completion_tokens: not added twice.
  assert.equal(
    answer(
      "stop",
      { content: "x" },
      {
        prompt_tokens: 10,
        completion_tokens: 50,
        total_tokens: 60,
        completion_tokens_details: { reasoning_tokens: 40 },
      },
    ).usage.outputTokens,
    50,
  );
});

test("openai-compatible: parseResponse refuses bodies of the wrong shape with a clear Error", () => {
  for (const adapter of [openaiAdapter, xaiAdapter, mistralAdapter, customAdapter])
    assertRefusesWithClearError(adapter, [
      { choices: "x" },
      { choices: [] },
      { choices: [null] },
      { choices: [{ message: "x" }] },
    ]);
});

const OPENAI_STREAM = sseFrames([
  {
    data: {
      id: "chatcmpl-123",
      object: "chat.completion.chunk",
      created: 1694268190,
      model: "gpt-4o-mini",
      system_fingerprint: "fp_44709d6fcb",
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      object: "chat.completion.chunk",
      created: 1694268190,
      model: "gpt-4o-mini",
      choices: [{ index: 0, delta: { content: "Hello" }, finish_reason: null }],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      object: "chat.completion.chunk",
      created: 1694268190,
      model: "gpt-4o-mini",
      choices: [{ index: 0, delta: { content: " — checking." }, finish_reason: null }],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      object: "chat.completion.chunk",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
                type: "function",
                function: { name: "get_weather", arguments: "" },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: '{"loc' } }] },
          finish_reason: null,
        },
      ],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: 'ation":"Paris"}' } }] },
          finish_reason: null,
        },
      ],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 1, id: "call_2", type: "function", function: { name: "get_time", arguments: "{}" } },
            ],
          },
          finish_reason: null,
        },
      ],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      model: "gpt-4o-mini",
      choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
    },
  },
  {
    data: {
      id: "chatcmpl-123",
      model: "gpt-4o-mini",
      choices: [],
      usage: {
        prompt_tokens: 82,
        completion_tokens: 18,
        total_tokens: 100,
        prompt_tokens_details: { cached_tokens: 64 },
      },
    },
  },
  { data: "[DONE]" },
]);

test("openai: stream decode in any chunking: start, text, tool calls from index 0, finish, usage", () => {
  assert.deepEqual(decodeStream(openaiAdapter, OPENAI_STREAM), [
    { type: "start", id: "chatcmpl-123", model: "gpt-4o-mini" },
    { type: "text", text: "Hello" },
    { type: "text", text: " — checking." },
    { type: "tool_call_start", index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather" },
    { type: "tool_call_delta", index: 0, arguments: '{"loc' },
    { type: "tool_call_delta", index: 0, arguments: 'ation":"Paris"}' },
    { type: "tool_call_start", index: 1, id: "call_2", name: "get_time" },
    { type: "tool_call_delta", index: 1, arguments: "{}" },
    { type: "finish", stopReason: "tool_calls" },
    { type: "usage", usage: { inputTokens: 82, outputTokens: 18, cacheReadTokens: 64, cacheWriteTokens: 0 } },
  ]);
  // The same stream with CRLF line ends.
  assert.equal(decodeStream(openaiAdapter, OPENAI_STREAM.replaceAll("\n", "\r\n")).length, 10);
});

test("mistral: stream with usage in the finishing chunk and whole parallel calls under index 0", () => {
  const stream = sseFrames([
    {
      data: {
        id: "cmpl-e5cc70bb28c444948073e77776eb30ef",
        object: "chat.completion.chunk",
        created: 1702256327,
        model: "mistral-small-latest",
        choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
      },
    },
    {
      data: {
        id: "cmpl-e5cc70bb28c444948073e77776eb30ef",
        object: "chat.completion.chunk",
        created: 1702256327,
        model: "mistral-small-latest",
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  id: "D681PevKs",
                  function: { name: "retrieve_payment_status", arguments: '{"transaction_id": "T1001"}' },
                  index: 0,
                },
                {
                  id: "8OmlB1Qte",
                  function: { name: "retrieve_payment_date", arguments: '{"transaction_id": "T1001"}' },
                  index: 0,
                },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 167, total_tokens: 218, completion_tokens: 51 },
      },
    },
    { data: "[DONE]" },
  ]);
  assert.deepEqual(decodeStream(mistralAdapter, stream), [
    { type: "start", id: "cmpl-e5cc70bb28c444948073e77776eb30ef", model: "mistral-small-latest" },
    { type: "tool_call_start", index: 0, id: "D681PevKs", name: "retrieve_payment_status" },
    { type: "tool_call_delta", index: 0, arguments: '{"transaction_id": "T1001"}' },
    { type: "tool_call_start", index: 1, id: "8OmlB1Qte", name: "retrieve_payment_date" },
    { type: "tool_call_delta", index: 1, arguments: '{"transaction_id": "T1001"}' },
    { type: "finish", stopReason: "tool_calls" },
    { type: "usage", usage: { inputTokens: 167, outputTokens: 51, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ]);
});

test("openai-compatible: an error chunk mid-stream throws a stream_error; junk throws malformed", () => {
  const decoder = openaiAdapter.createStreamDecoder();
  decoder.push(
    sseFrames([{ data: { id: "c", model: "m", choices: [{ index: 0, delta: { content: "Hi" } }] } }]),
  );
  assert.throws(
    () =>
      decoder.push(
        sseFrames([{ data: { error: { message: "The server had an error", type: "server_error" } } }]),
      ),
    (error: unknown) =>
      error instanceof Error &&
      error.message === "openai: The server had an error" &&
      (error as { reason?: string }).reason === "stream_error",
  );
  assert.throws(
    () => xaiAdapter.createStreamDecoder().push("data: {oops\n\n"),
    /^ProviderError: xai: stream chunk is not JSON/,
  );
});

test("openai-compatible: a stream cut before its finish still reports the usage it saw", () => {
  const decoder = openaiAdapter.createStreamDecoder();
  const events = [
    ...decoder.push(
      sseFrames([
        {
          data: {
            id: "c",
            model: "m",
            choices: [{ index: 0, delta: { content: "Hi" } }],
            usage: { prompt_tokens: 5, completion_tokens: 1 },
          },
        },
      ]),
    ),
    ...decoder.end(),
  ];
  assert.deepEqual(
    events.map((event) => event.type),
    ["start", "text", "usage"],
  );
});

test("openai-compatible: errorMessage reads {error:{message}}, xAI {error:string}, Mistral {message} and {detail}", () => {
  assert.equal(
    openaiAdapter.errorMessage(
      401,
      JSON.stringify({
        error: {
          message: "Incorrect API key provided: sk-abc.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }),
    ),
    "Incorrect API key provided: sk-abc.",
  );
  assert.equal(
    xaiAdapter.errorMessage(
      400,
      JSON.stringify({
        code: "Client specified an invalid argument",
        error: "Incorrect API key provided: xa***.",
      }),
    ),
    "Incorrect API key provided: xa***.",
  );
  assert.equal(
    mistralAdapter.errorMessage(
      400,
      JSON.stringify({
        object: "error",
        message: "Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.",
        type: "invalid_request_error",
        param: null,
        code: null,
      }),
    ),
    "Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.",
  );
  assert.equal(
    mistralAdapter.errorMessage(
      422,
      JSON.stringify({
        detail: [{ type: "extra_forbidden", loc: ["body", "user"], msg: "Extra inputs are not permitted" }],
      }),
    ),
    "body.user: Extra inputs are not permitted",
  );
  assert.equal(
    customAdapter.errorMessage(502, "<html>Bad gateway</html>"),
    "Custom upstream returned HTTP 502",
  );
  assert.equal(
    customAdapter.errorMessage(503, "upstream connect error"),
    "Custom upstream returned HTTP 503: upstream connect error",
  );
  assert.equal(openaiAdapter.errorMessage(500, ""), "OpenAI returned HTTP 500");
});

test("openai-compatible: an id-less opening chunk (Azure prompt filter results) does not take the start", () => {
  const stream = sseFrames([
    {
      data: {
        choices: [],
        created: 0,
        id: "",
        model: "",
        object: "",
        prompt_filter_results: [{ prompt_index: 0 }],
      },
    },
    {
      data: {
        id: "chatcmpl-9",
        model: "gpt-4o",
        choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }],
      },
    },
    { data: "[DONE]" },
  ]);
  assert.deepEqual(decodeStream(customAdapter, stream), [
    { type: "start", id: "chatcmpl-9", model: "gpt-4o" },
    { type: "text", text: "Hi" },
    { type: "finish", stopReason: "stop" },
  ]);
});

test("stream decoders: events decoded before an error frame in the same chunk are returned first", () => {
  const decoder = openaiAdapter.createStreamDecoder();
  const events = decoder.push(
    sseFrames([
      { data: { id: "c", model: "m", choices: [{ index: 0, delta: { content: "partial" } }] } },
      { data: { error: { message: "Rate limit reached", type: "requests" } } },
    ]),
  );
  assert.deepEqual(events, [
    { type: "start", id: "c", model: "m" },
    { type: "text", text: "partial" },
  ]);
  assert.throws(() => decoder.end(), /^ProviderError: openai: Rate limit reached$/);
  assert.throws(() => decoder.push("data: [DONE]\n\n"), /Rate limit reached/);
});
