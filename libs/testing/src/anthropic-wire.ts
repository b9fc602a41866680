import { randomBytes } from "node:crypto";
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
 * The Anthropic Messages API wire format (`POST /v1/messages`).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @see https://docs.anthropic.com/en/api/errors
 */

const ERROR_TYPES: Record<number, { type: string; message: string }> = {
  400: { type: "invalid_request_error", message: "Invalid request." },
  401: { type: "authentication_error", message: "invalid x-api-key" },
  402: { type: "billing_error", message: "Your credit balance is too low to access the Anthropic API." },
  403: {
    type: "permission_error",
    message: "Your API key does not have permission to use the specified resource.",
  },
  404: { type: "not_found_error", message: "The requested resource could not be found." },
  413: { type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." },
  429: {
    type: "rate_limit_error",
    message: "This request would exceed the rate limit for your organization.",
  },
  500: { type: "api_error", message: "Internal server error" },
  504: { type: "timeout_error", message: "Request timed out." },
  529: { type: "overloaded_error", message: "Overloaded" },
};

function requestId(): string {
  return `req_${randomBytes(12).toString("hex")}`;
}

/** Anthropic's error body for a status. */
export function anthropicError(status: number, message?: string) {
  const known = ERROR_TYPES[status] ?? {
    type: status >= 500 ? "api_error" : "invalid_request_error",
    message: `Upstream error ${status}.`,
  };
  return {
    type: "error",
    error: { type: known.type, message: message ?? known.message },
    request_id: requestId(),
  };
}

function textOfBlocks(content: unknown): { text: string; images: number; toolResult?: string } {
  if (typeof content === "string") return { text: content, images: 0 };
  const texts: string[] = [];
  let images = 0;
  let toolResult: string | undefined;
  for (const item of asArray(content)) {
    const block = asRecord(item);
    if (block?.type === "text") texts.push(asString(block.text) ?? "");
    else if (block?.type === "image") images++;
    else if (block?.type === "tool_result") toolResult = resultText(block.content);
  }
  return { text: texts.join(" "), images, toolResult };
}

/** The provider-neutral summary of a Messages request body. */
export function summarizeAnthropic(body: unknown): RequestSummary {
  const request = asRecord(body) ?? {};
  const summary = emptySummary();
  const texts: string[] = [];
  const system = textOfBlocks(request.system).text;
  if (system) texts.push(system);
  let lastRole: string | undefined;
  for (const item of asArray(request.messages)) {
    const message = asRecord(item);
    if (!message) continue;
    const role = asString(message.role);
    lastRole = role;
    const { text, images, toolResult } = textOfBlocks(message.content);
    if (text) texts.push(text);
    if (toolResult !== undefined) texts.push(toolResult);
    summary.toolResult = role === "user" ? toolResult : undefined;
    if (role === "user" && toolResult === undefined) {
      summary.lastUserText = text;
      summary.images = images;
    }
  }
  summary.lastIsUser = lastRole === "user" && summary.toolResult === undefined;
  summary.allText = texts.join(" ");
  for (const tool of asArray(request.tools)) {
    const name = asString(asRecord(tool)?.name);
    if (name !== undefined) summary.tools.push(name);
  }
  summary.maxTokens = asNumber(request.max_tokens);
  return summary;
}

const STOP_REASON: Record<FakeReply["finish"], string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_call: "tool_use",
};

function usageOf(reply: FakeReply, outputTokens: number) {
  return {
    input_tokens: Math.max(0, reply.inputTokens - reply.cachedTokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: reply.cachedTokens,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: "standard",
  };
}

function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What the real API checks first: a key, the version header, then the body. */
function rejectAnthropic(
  request: RecordedRequest,
  body: Record<string, unknown> | undefined,
): [number, string] | undefined {
  if (!header(request, "x-api-key") && !header(request, "authorization"))
    return [401, "x-api-key header is required"];
  if (!header(request, "anthropic-version")) return [400, "anthropic-version: header is required"];
  if (!body) return [400, "Invalid JSON body."];
  if (asNumber(body.max_tokens) === undefined) return [400, "max_tokens: Field required"];
  if (!Array.isArray(body.messages)) return [400, "messages: Field required"];
  return undefined;
}

/** POST /v1/messages. */
export function respondAnthropic(
  request: RecordedRequest,
  behaviour: FakeBehaviour,
  res: ServerResponse,
): void {
  const headers = { "request-id": requestId() };
  const body = asRecord(request.body);
  const rejection = rejectAnthropic(request, body);
  if (rejection || !body) {
    const [status, message] = rejection ?? [400, "Invalid JSON body."];
    sendJson(res, status, anthropicError(status, message), behaviour, headers);
    return;
  }

  const reply = decideReply(summarizeAnthropic(body), behaviour);
  const model = asString(body.model) ?? "claude-fake";
  const id = `msg_${randomBytes(12).toString("hex")}`;
  const toolUseId = `toolu_${randomBytes(12).toString("hex")}`;
  const stopReason = STOP_REASON[reply.finish];
  if (body.stream !== true) {
    const content = reply.toolCall
      ? [{ type: "tool_use", id: toolUseId, name: reply.toolCall.name, input: reply.toolCall.arguments }]
      : [{ type: "text", text: reply.text }];
    sendJson(
      res,
      200,
      {
        id,
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: usageOf(reply, reply.outputTokens),
      },
      behaviour,
      headers,
    );
    return;
  }
  const frames: StreamFrame[] = [];
  const push = (event: { type: string } & Record<string, unknown>, content = false) =>
    frames.push({ text: sse(JSON.stringify(event), event.type), content });
  push({
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageOf(reply, 1),
    },
  });
  if (reply.toolCall) {
    push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: toolUseId, name: reply.toolCall.name, input: {} },
    });
    push({ type: "ping" });
    for (const piece of ["", ...argumentDeltas(reply.toolCall.argumentsJson)])
      push(
        { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: piece } },
        true,
      );
  } else {
    push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    push({ type: "ping" });
    for (const word of wordChunks(reply.text))
      push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: word } }, true);
  }
  push({ type: "content_block_stop", index: 0 });
  const { cache_creation: _, service_tier: __, ...finalUsage } = usageOf(reply, reply.outputTokens);
  push({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: finalUsage });
  push({ type: "message_stop" });
  sendStream(res, behaviour, "text/event-stream; charset=utf-8", frames, headers);
}
