import type {
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
  TextPart,
  ToolCallPart,
} from "../canonical/types.js";
import { embeddedErrorMessage, malformed, ProviderError } from "./errors.js";
import { argumentsText } from "./json-args.js";
import type { OpenAiFlavor } from "./openai-flavor.js";
import { array, count, type JsonRecord, record, string } from "./shape.js";
import { SseJsonStreamDecoder } from "./sse-json-decoder.js";
import { newToolCallId } from "./tool-ids.js";

/**
 * Chat Completions answers (OpenAI, xAI, Mistral, custom):
 * `{id, model, choices:[{message:{content, refusal, tool_calls}, finish_reason}], usage}` and, when
 * streaming, `data:` chunks `{id, model, choices:[{delta, finish_reason}], usage}` ending in `[DONE]`.
 */

/**
 * `finish_reason`. Mistral adds `model_length` (context full) and `error`; some compatible servers
 * say `stop` after tool calls, so tool calls present win over a plain stop.
 */
export function openAiStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case "length":
    case "model_length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    case "error":
      return "error";
    default:
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

/**
 * `usage`. `prompt_tokens` already includes cached tokens (`prompt_tokens_details.cached_tokens`;
 * DeepSeek-style servers say `prompt_cache_hit_tokens`). OpenAI counts reasoning inside
 * `completion_tokens`; xAI has reported it beside them (total = prompt + completion + reasoning),
 * so reasoning is added only when the total shows it was left out.
 */
export function openAiUsage(value: unknown): CanonicalUsage {
  const usage = record(value);
  const input = count(usage?.prompt_tokens);
  let output = count(usage?.completion_tokens);
  const reasoning = count(record(usage?.completion_tokens_details)?.reasoning_tokens);
  if (reasoning > 0 && count(usage?.total_tokens) === input + output + reasoning) output += reasoning;
  const cached =
    count(record(usage?.prompt_tokens_details)?.cached_tokens) || count(usage?.prompt_cache_hit_tokens);
  return { inputTokens: input, outputTokens: output, cacheReadTokens: cached, cacheWriteTokens: 0 };
}

export function parseOpenAiResponse(value: unknown, flavor: OpenAiFlavor): CanonicalResponse {
  const provider = flavor.kind;
  const body = record(value);
  if (!body) throw malformed(provider, "the response body is not a JSON object");
  if (!Array.isArray(body.choices)) throw malformed(provider, 'the response has no "choices" array');
  const choice = record(body.choices[0]);
  if (!choice) throw malformed(provider, 'the response has an empty "choices" array');
  const message = record(choice.message);
  if (!message) throw malformed(provider, 'choices[0] has no "message" object');

  const content: Array<TextPart | ToolCallPart> = [];
  const text = messageText(message.content);
  if (text) content.push({ type: "text", text });
  const refusal = string(message.refusal);
  if (refusal) content.push({ type: "text", text: refusal });
  for (const item of array(message.tool_calls)) {
    const call = record(item);
    const fn = record(call?.function);
    if (!fn) continue;
    content.push({
      type: "tool_call",
      id: string(call?.id) || newToolCallId(),
      name: string(fn.name) ?? "",
      arguments: argumentsText(fn.arguments),
    });
  }
  const hasToolCalls = content.some((part) => part.type === "tool_call");
  return {
    id: string(body.id) ?? "",
    model: string(body.model) ?? "",
    content,
    stopReason: openAiStopReason(string(choice.finish_reason), hasToolCalls),
    usage: openAiUsage(body.usage),
  };
}

/** `content` is a string, or (Mistral, some compatible servers) an array of `{type:"text", text}` parts. */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  return array(content)
    .map((item) => {
      const part = record(item);
      return part?.type === "text" ? (string(part.text) ?? "") : "";
    })
    .join("");
}

export class OpenAiStreamDecoder extends SseJsonStreamDecoder {
  /** Open call per upstream tool-call index: its hub key and provider id. */
  private calls = new Map<number, { key: string; id: string | undefined }>();
  private serial = 0;

  constructor(private readonly flavor: OpenAiFlavor) {
    super(flavor.kind);
  }

  protected onObject(chunk: JsonRecord): void {
    const error = embeddedErrorMessage(chunk);
    if (error !== undefined) throw new ProviderError(this.flavor.kind, "stream_error", error);
    // Azure-style servers open with a choice-less, id-less chunk (prompt filter results): the
    // start waits for a chunk that names the completion.
    if (string(chunk.id) || array(chunk.choices).length > 0)
      this.events.start(string(chunk.id) ?? "", string(chunk.model) ?? "");

    // Only the first choice is relayed: the hub has no `n`.
    const choice = array(chunk.choices)
      .map(record)
      .find((item) => item !== undefined && (item.index === undefined || item.index === 0));
    const delta = record(choice?.delta);
    if (delta) {
      this.events.text(messageText(delta.content));
      const refusal = string(delta.refusal);
      if (refusal) this.events.text(refusal);
      array(delta.tool_calls).forEach((item, position) => {
        this.toolCallDelta(record(item), position);
      });
    }
    // Usage before finish: when both share a chunk (Mistral) the finish releases it in order.
    if (record(chunk.usage)) this.events.usage(openAiUsage(chunk.usage));
    const finishReason = string(choice?.finish_reason);
    if (finishReason) this.events.finish(openAiStopReason(finishReason, this.events.hasToolCalls));
  }

  /**
   * A tool-call delta. OpenAI sends the id and name once, then argument pieces under the same
   * `index`; Mistral and xAI send whole calls, sometimes several under index 0, so a new id at a
   * known index opens a new call.
   */
  private toolCallDelta(call: Record<string, unknown> | undefined, position: number): void {
    if (!call) return;
    const upstreamIndex = typeof call.index === "number" ? call.index : position;
    const fn = record(call.function);
    const id = string(call.id) || undefined;
    let open = this.calls.get(upstreamIndex);
    if (!open || (id !== undefined && id !== open.id)) {
      open = { key: `${upstreamIndex}:${this.serial++}`, id };
      this.calls.set(upstreamIndex, open);
      this.events.toolCallStart(open.key, id ?? newToolCallId(), string(fn?.name) ?? "");
    }
    const args = fn?.arguments;
    this.events.toolCallDelta(
      open.key,
      typeof args === "string" ? args : args == null ? "" : JSON.stringify(args),
    );
  }
}
