import type {
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
  TextPart,
  ToolCallPart,
} from "../canonical/types.js";
import { malformed, messageOf, ProviderError } from "./errors.js";
import { argumentsText } from "./json-args.js";
import { count, type JsonRecord, record, string } from "./shape.js";
import { SseJsonStreamDecoder } from "./sse-json-decoder.js";

const PROVIDER = "anthropic";

/**
 * `stop_reason`. `pause_turn` (a server tool paused a long turn) ends the answer normally;
 * `model_context_window_exceeded` is a length stop.
 */
export function anthropicStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

/**
 * `usage`. Anthropic's `input_tokens` excludes the cached part, the hub's includes it:
 * input = input_tokens + cache_read_input_tokens + cache_creation_input_tokens.
 */
export function anthropicUsage(value: unknown): CanonicalUsage {
  const usage = record(value);
  const cacheRead = count(usage?.cache_read_input_tokens);
  const cacheWrite = count(usage?.cache_creation_input_tokens);
  return {
    inputTokens: count(usage?.input_tokens) + cacheRead + cacheWrite,
    outputTokens: count(usage?.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

/** `{id, type:"message", model, content:[text | tool_use | thinking ...], stop_reason, usage}`. */
export function parseAnthropicResponse(value: unknown): CanonicalResponse {
  const body = record(value);
  if (!body) throw malformed(PROVIDER, "the response body is not a JSON object");
  if (body.type === "error")
    throw malformed(PROVIDER, `the response is an error: ${messageOf(body) ?? "unknown"}`);
  if (!Array.isArray(body.content)) throw malformed(PROVIDER, 'the response has no "content" array');
  const content: Array<TextPart | ToolCallPart> = [];
  for (const item of body.content) {
    const block = record(item);
    if (block?.type === "text") {
      const text = string(block.text);
      if (text) content.push({ type: "text", text });
    } else if (block?.type === "tool_use") {
      content.push({
        type: "tool_call",
        id: string(block.id) ?? "",
        name: string(block.name) ?? "",
        arguments: argumentsText(block.input),
      });
    }
    // thinking / redacted_thinking and server-tool blocks have no place in the hub.
  }
  const hasToolCalls = content.some((part) => part.type === "tool_call");
  return {
    id: string(body.id) ?? "",
    model: string(body.model) ?? "",
    content,
    stopReason: anthropicStopReason(string(body.stop_reason), hasToolCalls),
    usage: anthropicUsage(body.usage),
  };
}

/**
 * The Messages stream: `message_start` (id, model, input usage), then per content block
 * `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
 * `content_block_stop`, then `message_delta` (stop reason, cumulative usage) and `message_stop`;
 * `ping` keep-alives and `error` anywhere. Tool calls are keyed by content-block index.
 */
export class AnthropicStreamDecoder extends SseJsonStreamDecoder {
  private usage: JsonRecord = {};

  constructor() {
    super(PROVIDER);
  }

  protected onObject(event: JsonRecord, eventName: string): void {
    const type = string(event.type) ?? eventName;
    switch (type) {
      case "message_start": {
        const message = record(event.message);
        this.events.start(string(message?.id) ?? "", string(message?.model) ?? "");
        this.mergeUsage(message?.usage);
        return;
      }
      case "content_block_start":
        this.blockStart(event.index, record(event.content_block));
        return;
      case "content_block_delta":
        this.blockDelta(event.index, record(event.delta));
        return;
      case "message_delta": {
        this.mergeUsage(event.usage);
        const reason = string(record(event.delta)?.stop_reason);
        if (reason) this.events.finish(anthropicStopReason(reason, this.events.hasToolCalls));
        return;
      }
      case "error":
        throw new ProviderError(PROVIDER, "stream_error", messageOf(event) ?? "unknown stream error");
      default:
        // ping, content_block_stop, message_stop, and event types added later.
        return;
    }
  }

  private blockStart(index: unknown, block: JsonRecord | undefined): void {
    if (!block || typeof index !== "number") return;
    if (block.type === "text") this.events.text(string(block.text) ?? "");
    else if (block.type === "tool_use") {
      this.events.toolCallStart(index, string(block.id) ?? "", string(block.name) ?? "");
      // The start carries `input: {}`; the arguments come as input_json_delta pieces. A non-empty
      // input here (some proxies send the whole call at once) is the whole argument text.
      const input = record(block.input);
      if (input && Object.keys(input).length > 0) this.events.toolCallDelta(index, JSON.stringify(input));
    }
  }

  private blockDelta(index: unknown, delta: JsonRecord | undefined): void {
    if (!delta || typeof index !== "number") return;
    if (delta.type === "text_delta") this.events.text(string(delta.text) ?? "");
    else if (delta.type === "input_json_delta")
      this.events.toolCallDelta(index, string(delta.partial_json) ?? "");
    // thinking_delta, signature_delta, citations_delta: not relayed.
  }

  /** message_start has the input side; message_delta's counts are cumulative and replace them. */
  private mergeUsage(value: unknown): void {
    const usage = record(value);
    if (!usage) return;
    for (const [key, field] of Object.entries(usage)) if (typeof field === "number") this.usage[key] = field;
    this.events.usage(anthropicUsage(this.usage));
  }
}
