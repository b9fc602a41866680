import { randomBytes, randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { FakeBehaviour, RecordedRequest } from "./fake-behaviour.js";
import {
  argumentDeltas,
  asArray,
  asNumber,
  asRecord,
  asString,
  decideReply,
  emptySummary,
  type FakeReply,
  type RequestSummary,
  resultText,
  wordChunks,
} from "./fake-reply.js";
import { type StreamFrame, sendJson, sendStream, sse } from "./fake-stream.js";

/**
 * Bodies in the OpenAI chat-completions wire format, as the API sends them (also what xAI, Mistral
 * and OpenAI-compatible servers send).
 * @see https://platform.openai.com/docs/api-reference/chat/object
 * @see https://platform.openai.com/docs/api-reference/chat/streaming
 */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number };
}

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export function chatUsage(promptTokens: number, completionTokens: number, cachedTokens = 0): ChatUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

export function chatCompletion(options: {
  id: string;
  model: string;
  content: string | null;
  usage: ChatUsage;
  created: number;
  toolCalls?: ChatToolCall[];
  finishReason?: string;
}) {
  return {
    id: options.id,
    object: "chat.completion",
    created: options.created,
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: options.content,
          ...(options.toolCalls ? { tool_calls: options.toolCalls } : {}),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: options.finishReason ?? "stop",
      },
    ],
    usage: options.usage,
    service_tier: "default",
    system_fingerprint: "fp_fake",
  };
}

export function chatChunk(options: {
  id: string;
  model: string;
  created: number;
  delta: Record<string, unknown>;
  finishReason?: string | null;
  /** `null` on every chunk when the client asked for usage; absent otherwise. */
  withUsageField: boolean;
  /** Usage on this chunk itself (Mistral puts it on the chunk with `finish_reason`). */
  usage?: ChatUsage;
}) {
  return {
    id: options.id,
    object: "chat.completion.chunk",
    created: options.created,
    model: options.model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
    choices: [
      { index: 0, delta: options.delta, logprobs: null, finish_reason: options.finishReason ?? null },
    ],
    ...(options.usage ? { usage: options.usage } : options.withUsageField ? { usage: null } : {}),
  };
}

/** The last chunk of a stream with `stream_options.include_usage`: no choices, the usage. */
export function chatUsageChunk(options: { id: string; model: string; created: number; usage: ChatUsage }) {
  return {
    id: options.id,
    object: "chat.completion.chunk",
    created: options.created,
    model: options.model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
    choices: [],
    usage: options.usage,
  };
}

/** OpenAI's error body; `type`/`code` as the API uses them for the status. */
export function openAiError(status: number, message?: string) {
  const byStatus: Record<number, { type: string; code: string | null; message: string }> = {
    400: { type: "invalid_request_error", code: null, message: "Invalid request." },
    401: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." },
    403: {
      type: "invalid_request_error",
      code: "unsupported_country_region_territory",
      message: "Forbidden.",
    },
    404: { type: "invalid_request_error", code: "model_not_found", message: "The model does not exist." },
    429: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests." },
    500: {
      type: "server_error",
      code: null,
      message: "The server had an error while processing your request.",
    },
    503: { type: "server_error", code: null, message: "The engine is currently overloaded." },
  };
  const known = byStatus[status] ?? {
    type: "server_error",
    code: null,
    message: `Upstream error ${status}.`,
  };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}

/** The provider-neutral summary of a chat-completions request body. */
export function summarizeOpenAiChat(body: unknown): RequestSummary {
  const request = asRecord(body) ?? {};
  const summary = emptySummary();
  const texts: string[] = [];
  const messages = asArray(request.messages);
  let lastRole: string | undefined;
  for (const item of messages) {
    const message = asRecord(item);
    if (!message) continue;
    const role = asString(message.role);
    lastRole = role;
    const content = message.content;
    if (role === "tool" || role === "function") {
      const text = resultText(content);
      texts.push(text);
      summary.toolResult = text;
      continue;
    }
    summary.toolResult = undefined;
    let text: string;
    let images = 0;
    if (typeof content === "string") text = content;
    else {
      const parts: string[] = [];
      for (const part of asArray(content)) {
        const record = asRecord(part);
        if (record?.type === "text") parts.push(asString(record.text) ?? "");
        else if (record?.type === "image_url") images++;
      }
      text = parts.join(" ");
    }
    texts.push(text);
    if (role === "user") {
      summary.lastUserText = text;
      summary.images = images;
    }
  }
  summary.lastIsUser = lastRole === "user";
  summary.allText = texts.join(" ");
  for (const tool of asArray(request.tools)) {
    const name = asString(asRecord(asRecord(tool)?.function)?.name);
    if (name !== undefined) summary.tools.push(name);
  }
  for (const fn of asArray(request.functions)) {
    const name = asString(asRecord(fn)?.name);
    if (name !== undefined) summary.tools.push(name);
  }
  const format = asString(asRecord(request.response_format)?.type);
  summary.json = format === "json_object" || format === "json_schema";
  summary.maxTokens = asNumber(request.max_completion_tokens) ?? asNumber(request.max_tokens);
  return summary;
}

const FINISH: Record<FakeReply["finish"], string> = {
  stop: "stop",
  length: "length",
  tool_call: "tool_calls",
};

/** POST /v1/chat/completions. */
export function respondOpenAiChat(
  request: RecordedRequest,
  behaviour: FakeBehaviour,
  res: ServerResponse,
): void {
  const body = asRecord(request.body) ?? {};
  const reply = decideReply(summarizeOpenAiChat(body), behaviour);
  const model = asString(body.model) ?? "fake-model";
  const usage = chatUsage(reply.inputTokens, reply.outputTokens, reply.cachedTokens);
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const toolCall: ChatToolCall | undefined = reply.toolCall && {
    id: `call_${randomBytes(12).toString("hex")}`,
    type: "function",
    function: { name: reply.toolCall.name, arguments: reply.toolCall.argumentsJson },
  };
  const finishReason = FINISH[reply.finish];
  if (body.stream !== true) {
    const content = toolCall ? null : reply.text;
    const toolCalls = toolCall ? [toolCall] : undefined;
    sendJson(
      res,
      200,
      chatCompletion({ id, model, content, usage, created, toolCalls, finishReason }),
      behaviour,
    );
    return;
  }
  const includeUsage = asRecord(body.stream_options)?.include_usage === true;
  const base = { id, model, created, withUsageField: includeUsage };
  const frames: StreamFrame[] = [];
  const push = (chunk: unknown, content: boolean) =>
    frames.push({ text: sse(JSON.stringify(chunk)), content });
  if (toolCall) {
    const head = {
      index: 0,
      id: toolCall.id,
      type: "function",
      function: { name: toolCall.function.name, arguments: "" },
    };
    push(
      chatChunk({ ...base, delta: { role: "assistant", content: null, tool_calls: [head], refusal: null } }),
      false,
    );
    for (const piece of argumentDeltas(toolCall.function.arguments))
      push(
        chatChunk({ ...base, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] } }),
        true,
      );
  } else {
    push(chatChunk({ ...base, delta: { role: "assistant", content: "", refusal: null } }), false);
    for (const word of wordChunks(reply.text)) push(chatChunk({ ...base, delta: { content: word } }), true);
  }
  const usageOnFinish = behaviour.alwaysStreamUsage && !includeUsage ? usage : undefined;
  push(chatChunk({ ...base, delta: {}, finishReason, usage: usageOnFinish }), false);
  if (includeUsage) push(chatUsageChunk({ id, model, created, usage }), false);
  frames.push({ text: sse("[DONE]"), content: false });
  sendStream(res, behaviour, "text/event-stream", frames);
}
