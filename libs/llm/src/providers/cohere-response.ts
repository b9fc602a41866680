import type {
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
  TextPart,
  ToolCallPart,
} from "../canonical/types.js";
import { embeddedErrorMessage, malformed, ProviderError } from "./errors.js";
import { argumentsText } from "./json-args.js";
import { array, count, type JsonRecord, record, string } from "./shape.js";
import { SseJsonStreamDecoder } from "./sse-json-decoder.js";
import { newToolCallId } from "./tool-ids.js";

const PROVIDER = "cohere";

export function cohereStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case "MAX_TOKENS":
      return "length";
    case "TOOL_CALL":
      return "tool_calls";
    case "ERROR":
    case "ERROR_TOXIC":
    case "ERROR_LIMIT":
      return "error";
    default:
      // COMPLETE, STOP_SEQUENCE.
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

/**
 * `usage` has two counts: `tokens` (everything the model read, including Cohere's own prompt
 * template) and `billed_units` (what is charged). The hub bills, so it takes `billed_units`,
 * falling back to `tokens` when absent. `cached_tokens` counts against `tokens`, not against the
 * billed units (it can exceed them), and Cohere prices no cache reads, so it is not reported.
 */
export function cohereUsage(value: unknown): CanonicalUsage {
  const usage = record(value);
  const units = record(usage?.billed_units) ?? record(usage?.tokens);
  return {
    inputTokens: count(units?.input_tokens),
    outputTokens: count(units?.output_tokens),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

/** Tools without parameters sometimes come back with the arguments text `null`. */
function toolCall(value: unknown): ToolCallPart | undefined {
  const call = record(value);
  const fn = record(call?.function);
  if (!fn) return undefined;
  return {
    type: "tool_call",
    id: string(call?.id) || newToolCallId(),
    name: string(fn.name) ?? "",
    arguments: argumentsText(fn.arguments),
  };
}

/** `{id, finish_reason, message:{role, content:[{type:"text", text}], tool_plan, tool_calls}, usage}`. */
export function parseCohereResponse(value: unknown): CanonicalResponse {
  const body = record(value);
  if (!body) throw malformed(PROVIDER, "the response body is not a JSON object");
  const message = record(body.message);
  if (!message) throw malformed(PROVIDER, 'the response has no "message" object');
  const content: Array<TextPart | ToolCallPart> = [];
  for (const item of array(message.content)) {
    const part = record(item);
    const text = part?.type === "text" ? string(part.text) : undefined;
    if (text) content.push({ type: "text", text });
    // `thinking` parts (reasoning models) are not answer text.
  }
  for (const item of array(message.tool_calls)) {
    const call = toolCall(item);
    if (call) content.push(call);
  }
  const hasToolCalls = content.some((part) => part.type === "tool_call");
  return {
    id: string(body.id) ?? "",
    // The v2 response does not name the model.
    model: string(body.model) ?? "",
    content,
    stopReason: cohereStopReason(string(body.finish_reason), hasToolCalls),
    usage: cohereUsage(body.usage),
  };
}

/**
 * The v2 chat stream: SSE whose `data:` objects carry their `type`: `message-start` (id),
 * `content-start` / `content-delta` / `content-end` (text under `delta.message.content`),
 * `tool-plan-delta`, `tool-call-start` / `tool-call-delta` / `tool-call-end` (one call under
 * `delta.message.tool_calls`, keyed by `index`), `citation-*`, and `message-end` (finish reason
 * and usage under `delta`).
 */
export class CohereStreamDecoder extends SseJsonStreamDecoder {
  /** Content indexes that hold reasoning (`thinking`), not answer text. */
  private thinking = new Set<number>();
  private lastCallKey: number | undefined;

  constructor() {
    super(PROVIDER);
  }

  protected onObject(event: JsonRecord, eventName: string): void {
    const type = string(event.type) ?? eventName;
    const delta = record(event.delta);
    const message = record(delta?.message);
    const index = typeof event.index === "number" ? event.index : undefined;
    switch (type) {
      case "message-start":
        this.events.start(string(event.id) ?? "", "");
        return;
      case "content-start": {
        const content = record(message?.content);
        if (content?.type === "thinking" && index !== undefined) this.thinking.add(index);
        else this.events.text(string(content?.text) ?? "");
        return;
      }
      case "content-delta":
        if (index === undefined || !this.thinking.has(index))
          this.events.text(string(record(message?.content)?.text) ?? "");
        return;
      case "tool-call-start":
        this.toolCallStart(index, message?.tool_calls);
        return;
      case "tool-call-delta": {
        const key = index !== undefined && this.events.hasToolCall(index) ? index : this.lastCallKey;
        const args = string(record(record(message?.tool_calls)?.function)?.arguments);
        if (key !== undefined && args) this.events.toolCallDelta(key, args);
        return;
      }
      case "message-end": {
        if (record(delta?.usage)) this.events.usage(cohereUsage(delta?.usage));
        this.events.finish(cohereStopReason(string(delta?.finish_reason), this.events.hasToolCalls));
        return;
      }
      default: {
        // tool-plan-delta, content-end, tool-call-end, citation-*, debug: nothing to relay; an
        // error object in their place ends the stream.
        const error = embeddedErrorMessage(event);
        if (error !== undefined) throw new ProviderError(PROVIDER, "stream_error", error);
      }
    }
  }

  private toolCallStart(index: number | undefined, value: unknown): void {
    // `tool_calls` is one call here (an object), though a list is accepted too.
    const call = Array.isArray(value) ? value[0] : value;
    const part = toolCall(call);
    if (!part) return;
    const key = index ?? (this.lastCallKey ?? -1) + 1;
    this.lastCallKey = key;
    this.events.toolCallStart(key, part.id, part.name);
    // The start usually holds `arguments: ""`; anything there is the beginning of the arguments.
    const initial = string(record(record(call)?.function)?.arguments);
    if (initial) this.events.toolCallDelta(key, initial);
  }
}
