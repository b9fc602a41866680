import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { PrismaClient } from "@gw/db";
import { PROVIDER_KINDS, type ProviderKind } from "@gw/llm";
import { seedProject } from "@gw/service-standalone";
import type { FakeUpstream, RecordedRequest } from "@gw/testing";
import OpenAI from "openai";

/**
 * The proxy-surface matrix: every client wire format (chat-completions and responses through the
 * official `openai` SDK, messages through `@anthropic-ai/sdk`) against every provider kind, served
 * by the fake upstream speaking that provider's own API. Written once, run in both modes.
 */
export interface MatrixGateway {
  url: string;
  prisma: PrismaClient;
  secretKey: Buffer;
  upstream: FakeUpstream;
}

export interface KindTarget {
  kind: ProviderKind;
  token: string;
  upstreamKey: string;
  upstreamModel: string;
}

/** Where the fake serves each kind's API, as a model's `baseUrl` would name it. */
export function fakeBaseUrl(upstream: FakeUpstream, kind: ProviderKind): string {
  switch (kind) {
    case "anthropic":
    case "cohere":
    case "ollama":
      return upstream.url;
    case "gemini":
      return `${upstream.url}/v1beta`;
    default:
      return `${upstream.url}/v1`;
  }
}

/** One project per kind (`kind-<kind>`), one model pointing at the fake, one token. */
export async function seedKinds(gateway: MatrixGateway): Promise<Map<ProviderKind, KindTarget>> {
  const targets = new Map<ProviderKind, KindTarget>();
  for (const kind of PROVIDER_KINDS) {
    const upstreamKey = `sk-up-${kind}-secret`;
    const upstreamModel = `${kind}-upstream-model`;
    const seeded = await seedProject(gateway.prisma, gateway.secretKey, {
      projectSlug: `kind-${kind}`,
      modelId: `model-${kind}`,
      provider: kind,
      baseUrl: fakeBaseUrl(gateway.upstream, kind),
      upstreamModel,
      apiKey: upstreamKey,
      // Declared, so the capabilities filter is exercised (tools, images and JSON all need one).
      capabilities: ["chat", "functionCalling", "vision", "json"],
    });
    targets.set(kind, { kind, token: seeded.token, upstreamKey, upstreamModel });
  }
  return targets;
}

export const openaiClient = (gateway: MatrixGateway, token: string) =>
  new OpenAI({ apiKey: token, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 });
export const anthropicClient = (gateway: MatrixGateway, token: string) =>
  new Anthropic({ apiKey: token, baseURL: gateway.url, maxRetries: 0, timeout: 20_000 });

/** A 1x1 PNG: every kind accepts a data URL (Ollama and Gemini need the bytes, not a link). */
export const TINY_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TINY_PNG_URL = `data:image/png;base64,${TINY_PNG_BASE64}`;

const WEATHER_TOOL_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
};

/** The last request the fake received, with the checks every call must pass. */
export function lastUpstreamCall(gateway: MatrixGateway, target: KindTarget): RecordedRequest {
  const forwarded = gateway.upstream.requests.at(-1);
  assert.ok(forwarded, "the upstream received the request");
  const expectedApi =
    target.kind === "mistral" || target.kind === "xai" || target.kind === "custom" ? "openai" : target.kind;
  assert.equal(forwarded.kind, expectedApi, `${target.kind}: the provider's own API was called`);
  const headers = JSON.stringify(forwarded.headers);
  assert.ok(headers.includes(target.upstreamKey), `${target.kind}: the model's key was sent`);
  assert.ok(!headers.includes(target.token), `${target.kind}: the client token never goes upstream`);
  assert.ok(
    JSON.stringify(forwarded).includes(target.upstreamModel),
    `${target.kind}: the upstream model id was sent`,
  );
  return forwarded;
}

// ---------------------------------------------------------------- chat-completions client

export async function chatText(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const completion = await client.chat.completions.create({
    model: "any",
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "hello there" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "what is new" },
    ],
    max_tokens: 200,
    user: "end-user-1",
  });
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.choices[0]?.message.content, "Echo: what is new", target.kind);
  assert.equal(completion.choices[0]?.finish_reason, "stop");
  assert.ok((completion.usage?.prompt_tokens ?? 0) > 0, "usage is reported");
  lastUpstreamCall(gateway, target);
}

export async function chatStream(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const stream = await client.chat.completions.create({
    model: "any",
    messages: [{ role: "user", content: "stream me this" }],
    stream: true,
  });
  let text = "";
  let finish: string | null | undefined;
  // The canonical SDK loop, with no extra header: the trace event must not break it.
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(text, "Echo: stream me this", target.kind);
  assert.equal(finish, "stop");
  lastUpstreamCall(gateway, target);
}

export async function chatTools(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: "function",
      function: { name: "get_weather", description: "Weather", parameters: WEATHER_TOOL_SCHEMA },
    },
  ];
  const first = await client.chat.completions.create({
    model: "any",
    messages: [{ role: "user", content: "weather in Paris" }],
    tools,
  });
  const call = first.choices[0]?.message.tool_calls?.[0];
  assert.ok(call && call.type === "function", `${target.kind}: a tool call comes back`);
  assert.equal(call.function.name, "get_weather");
  assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Paris" });
  assert.equal(first.choices[0]?.finish_reason, "tool_calls");
  const second = await client.chat.completions.create({
    model: "any",
    messages: [
      { role: "user", content: "weather in Paris" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: call.id, content: "sunny" },
    ],
    tools,
  });
  assert.equal(second.choices[0]?.message.content, "Tool result: sunny", target.kind);
  lastUpstreamCall(gateway, target);
}

export async function chatStreamTools(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const runner = client.chat.completions.stream({
    model: "any",
    messages: [{ role: "user", content: "weather in Rome" }],
    tools: [{ type: "function", function: { name: "get_weather", parameters: WEATHER_TOOL_SCHEMA } }],
  });
  const final = await runner.finalChatCompletion();
  const call = final.choices[0]?.message.tool_calls?.[0];
  assert.ok(call && call.type === "function", `${target.kind}: a streamed tool call comes back`);
  assert.equal(call.function.name, "get_weather");
  assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Rome" });
}

export async function chatImage(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const completion = await client.chat.completions.create({
    model: "any",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "describe this" },
          { type: "image_url", image_url: { url: TINY_PNG_URL } },
        ],
      },
    ],
  });
  assert.equal(completion.choices[0]?.message.content, "Echo: describe this [images: 1]", target.kind);
}

// ---------------------------------------------------------------- responses client

export async function responsesText(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const response = await client.responses.create({
    model: "any",
    instructions: "Be brief.",
    input: "first question",
  });
  assert.equal(response.object, "response");
  assert.equal(response.output_text, "Echo: first question", target.kind);
  assert.ok((response.usage?.input_tokens ?? 0) > 0);
  const followUp = await client.responses.create({
    model: "any",
    input: [{ role: "user", content: "second question" }],
    previous_response_id: response.id,
  });
  assert.equal(followUp.output_text, "Echo: second question");
  // The stored conversation went upstream: the first turn and its answer are in the second call.
  const forwarded = JSON.stringify(lastUpstreamCall(gateway, target).body);
  assert.ok(forwarded.includes("first question") && forwarded.includes("Echo: first question"), target.kind);
}

export async function responsesStream(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const stream = await client.responses.create({ model: "any", input: "stream it", stream: true });
  let text = "";
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    if (event.type === "response.output_text.delta") text += event.delta;
    if (event.type === "response.completed") completed = event.response;
  }
  assert.equal(text, "Echo: stream it", target.kind);
  assert.ok(completed, "response.completed arrives");
  const helper = client.responses.stream({
    model: "any",
    input: "again",
    previous_response_id: completed.id,
  });
  const final = await helper.finalResponse();
  assert.equal(final.output_text, "Echo: again");
}

export async function responsesTools(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const tools: OpenAI.Responses.Tool[] = [
    { type: "function", name: "get_weather", parameters: WEATHER_TOOL_SCHEMA, strict: false },
  ];
  const first = await client.responses.create({ model: "any", input: "weather in Oslo", tools });
  const call = first.output.find((item) => item.type === "function_call");
  assert.ok(call && call.type === "function_call", `${target.kind}: a function_call item comes back`);
  assert.equal(call.name, "get_weather");
  const second = await client.responses.create({
    model: "any",
    previous_response_id: first.id,
    input: [{ type: "function_call_output", call_id: call.call_id, output: "snowing" }],
    tools,
  });
  assert.equal(second.output_text, "Tool result: snowing", target.kind);
}

export async function responsesImage(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = openaiClient(gateway, target.token);
  const response = await client.responses.create({
    model: "any",
    input: [
      {
        role: "user",
        content: [
          { type: "input_text", text: "what is this" },
          { type: "input_image", image_url: TINY_PNG_URL, detail: "auto" },
        ],
      },
    ],
  });
  assert.equal(response.output_text, "Echo: what is this [images: 1]", target.kind);
}

// ---------------------------------------------------------------- messages client

export async function messagesText(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = anthropicClient(gateway, target.token);
  const message = await client.messages.create({
    model: "any",
    max_tokens: 300,
    system: "You are terse.",
    messages: [
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "tell me more" },
    ],
  });
  assert.equal(message.type, "message");
  const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  assert.equal(text, "Echo: tell me more", target.kind);
  assert.equal(message.stop_reason, "end_turn");
  assert.ok(message.usage.output_tokens > 0);
  lastUpstreamCall(gateway, target);
}

export async function messagesStream(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = anthropicClient(gateway, target.token);
  const stream = client.messages.stream({
    model: "any",
    max_tokens: 300,
    messages: [{ role: "user", content: "stream please" }],
  });
  let deltas = "";
  stream.on("text", (delta) => {
    deltas += delta;
  });
  const final = await stream.finalMessage();
  assert.equal(deltas, "Echo: stream please", target.kind);
  assert.equal(final.stop_reason, "end_turn");
  lastUpstreamCall(gateway, target);
}

export async function messagesTools(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = anthropicClient(gateway, target.token);
  const tools: Anthropic.Tool[] = [
    {
      name: "get_weather",
      description: "Weather",
      input_schema: WEATHER_TOOL_SCHEMA as Anthropic.Tool.InputSchema,
    },
  ];
  const first = await client.messages.create({
    model: "any",
    max_tokens: 300,
    messages: [{ role: "user", content: "weather in Lima" }],
    tools,
  });
  const use = first.content.find((block) => block.type === "tool_use");
  assert.ok(use && use.type === "tool_use", `${target.kind}: a tool_use block comes back`);
  assert.equal(use.name, "get_weather");
  assert.deepEqual(use.input, { query: "weather in Lima" });
  assert.equal(first.stop_reason, "tool_use");
  const second = await client.messages.create({
    model: "any",
    max_tokens: 300,
    tools,
    messages: [
      { role: "user", content: "weather in Lima" },
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "foggy" }] },
    ],
  });
  const text = second.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  assert.equal(text, "Tool result: foggy", target.kind);
}

export async function messagesStreamTools(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = anthropicClient(gateway, target.token);
  const final = await client.messages
    .stream({
      model: "any",
      max_tokens: 300,
      messages: [{ role: "user", content: "weather in Cairo" }],
      tools: [{ name: "get_weather", input_schema: WEATHER_TOOL_SCHEMA as Anthropic.Tool.InputSchema }],
    })
    .finalMessage();
  const use = final.content.find((block) => block.type === "tool_use");
  assert.ok(use && use.type === "tool_use", `${target.kind}: a streamed tool_use block comes back`);
  assert.deepEqual(use.input, { query: "weather in Cairo" });
}

export async function messagesImage(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const client = anthropicClient(gateway, target.token);
  const message = await client.messages.create({
    model: "any",
    max_tokens: 300,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG_BASE64 } },
        ],
      },
    ],
  });
  const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  assert.equal(text, "Echo: look [images: 1]", target.kind);
}

/** Every check, by name, for the suites to turn into one test per (check, kind). */
export const MATRIX_CHECKS = {
  "chat: text, multi-turn, system": chatText,
  "chat: streaming": chatStream,
  "chat: tool call and tool result": chatTools,
  "chat: streamed tool call": chatStreamTools,
  "chat: image part": chatImage,
  "responses: text and previous_response_id": responsesText,
  "responses: streaming and previous_response_id": responsesStream,
  "responses: function call and output": responsesTools,
  "responses: image part": responsesImage,
  "messages: text, multi-turn, system": messagesText,
  "messages: streaming": messagesStream,
  "messages: tool_use and tool_result": messagesTools,
  "messages: streamed tool_use": messagesStreamTools,
  "messages: image block": messagesImage,
} as const;
