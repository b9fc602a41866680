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
 * The Cohere v2 Chat API wire format (`POST /v2/chat`).
 * @see https://docs.cohere.com/reference/chat
 * @see https://docs.cohere.com/reference/chat-stream
 * @see https://docs.cohere.com/v2/docs/streaming
 * @see https://docs.cohere.com/reference/errors
 */

const ERROR_MESSAGES: Record<number, string> = {
  400: "invalid request: the request body is not valid.",
  401: "invalid api token",
  402: "Please add or update your payment method.",
  404: "model not found, make sure the correct model ID was used and that you have access to the model.",
  429: "You are past the per minute request limit, please wait and try again later.",
  499: "request cancelled by user",
  500: "internal server error, this has been reported to our developers.",
  503: "service unavailable",
};

/** Cohere's error body: an id and a human message. */
export function cohereError(status: number, message?: string) {
  return { id: randomUUID(), message: message ?? ERROR_MESSAGES[status] ?? `upstream error ${status}` };
}

function contentText(content: unknown): { text: string; images: number } {
  if (typeof content === "string") return { text: content, images: 0 };
  const texts: string[] = [];
  let images = 0;
  for (const item of asArray(content)) {
    const part = asRecord(item);
    if (part?.type === "text") texts.push(asString(part.text) ?? "");
    else if (part?.type === "image_url" || part?.type === "image") images++;
  }
  return { text: texts.join(" "), images };
}

/** The provider-neutral summary of a v2 chat request body. */
export function summarizeCohere(body: unknown): RequestSummary {
  const request = asRecord(body) ?? {};
  const summary = emptySummary();
  const texts: string[] = [];
  let lastRole: string | undefined;
  for (const item of asArray(request.messages)) {
    const message = asRecord(item);
    if (!message) continue;
    const role = asString(message.role);
    lastRole = role;
    if (role === "tool") {
      const text = resultText(message.content);
      texts.push(text);
      summary.toolResult = text;
      continue;
    }
    summary.toolResult = undefined;
    const { text, images } = contentText(message.content);
    if (text) texts.push(text);
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
  summary.json = asString(asRecord(request.response_format)?.type) === "json_object";
  summary.maxTokens = asNumber(request.max_tokens);
  return summary;
}

const FINISH: Record<FakeReply["finish"], string> = {
  stop: "COMPLETE",
  length: "MAX_TOKENS",
  tool_call: "TOOL_CALL",
};

function usageOf(reply: FakeReply) {
  return {
    billed_units: { input_tokens: reply.inputTokens, output_tokens: reply.outputTokens },
    tokens: { input_tokens: reply.inputTokens, output_tokens: reply.outputTokens },
    cached_tokens: reply.cachedTokens,
  };
}

function rejectCohere(
  request: RecordedRequest,
  body: Record<string, unknown> | undefined,
): [number, string] | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization !== "string" || !/^bearer\s+\S/i.test(authorization))
    return [401, "no api key supplied"];
  if (!body || typeof body.model !== "string") return [400, "invalid request: model must be specified."];
  if (!Array.isArray(body.messages)) return [400, "invalid request: messages must be specified."];
  return undefined;
}

/** POST /v2/chat. */
export function respondCohere(request: RecordedRequest, behaviour: FakeBehaviour, res: ServerResponse): void {
  const body = asRecord(request.body);
  const rejection = rejectCohere(request, body);
  if (rejection || !body) {
    const [status, message] = rejection ?? [400, "invalid request"];
    sendJson(res, status, cohereError(status, message), behaviour);
    return;
  }

  const reply = decideReply(summarizeCohere(body), behaviour);
  const id = randomUUID();
  const finishReason = FINISH[reply.finish];
  const call = reply.toolCall && {
    id: `${reply.toolCall.name}_${randomBytes(6).toString("hex")}`,
    type: "function",
    function: { name: reply.toolCall.name, arguments: reply.toolCall.argumentsJson },
  };
  const toolPlan = call ? `I will use the ${call.function.name} tool.` : "";
  if (body.stream !== true) {
    const message = call
      ? { role: "assistant", tool_plan: toolPlan, tool_calls: [call] }
      : { role: "assistant", content: [{ type: "text", text: reply.text }] };
    sendJson(res, 200, { id, message, finish_reason: finishReason, usage: usageOf(reply) }, behaviour);
    return;
  }
  const frames: StreamFrame[] = [];
  const push = (event: { type: string } & Record<string, unknown>, content = false) =>
    frames.push({ text: sse(JSON.stringify(event), event.type), content });
  push({
    id,
    type: "message-start",
    delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } },
  });
  if (call) {
    for (const word of wordChunks(toolPlan))
      push({ type: "tool-plan-delta", delta: { message: { tool_plan: word } } }, true);
    push({
      type: "tool-call-start",
      index: 0,
      delta: { message: { tool_calls: { ...call, function: { name: call.function.name, arguments: "" } } } },
    });
    for (const piece of argumentDeltas(call.function.arguments))
      push(
        {
          type: "tool-call-delta",
          index: 0,
          delta: { message: { tool_calls: { function: { arguments: piece } } } },
        },
        true,
      );
    push({ type: "tool-call-end", index: 0 });
  } else {
    push({ type: "content-start", index: 0, delta: { message: { content: { type: "text", text: "" } } } });
    for (const word of wordChunks(reply.text))
      push({ type: "content-delta", index: 0, delta: { message: { content: { text: word } } } }, true);
    push({ type: "content-end", index: 0 });
  }
  push({ type: "message-end", delta: { finish_reason: finishReason, usage: usageOf(reply) } });
  frames.push({ text: sse("[DONE]"), content: false });
  sendStream(res, behaviour, "text/event-stream", frames);
}
