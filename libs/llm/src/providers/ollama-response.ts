import type {
  CanonicalResponse,
  CanonicalStreamEvent,
  CanonicalUsage,
  StopReason,
  TextPart,
  ToolCallPart,
} from "../canonical/types.js";
import { embeddedErrorMessage, malformed, ProviderError } from "./errors.js";
import { argumentsText } from "./json-args.js";
import { NdjsonDecoder } from "./ndjson-decoder.js";
import { array, count, type JsonRecord, record, string } from "./shape.js";
import { StreamEvents } from "./stream-events.js";
import { newToolCallId } from "./tool-ids.js";
import type { StreamDecoder } from "./types.js";

const PROVIDER = "ollama";

/** `done_reason`: `stop`, `length`, or `load` / `unload` (model housekeeping, treated as a stop). */
export function ollamaStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  if (reason === "length") return "length";
  return hasToolCalls ? "tool_calls" : "stop";
}

/**
 * `prompt_eval_count` / `eval_count`. Ollama has no prompt-cache accounting (a prompt reused from
 * its KV cache is simply counted lower, or the field left out).
 */
export function ollamaUsage(body: JsonRecord): CanonicalUsage {
  return {
    inputTokens: count(body.prompt_eval_count),
    outputTokens: count(body.eval_count),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

/** `message.tool_calls[{function:{name, arguments: object}}]`; ids only from recent versions, made up otherwise. */
function toolCalls(message: JsonRecord | undefined): ToolCallPart[] {
  return array(message?.tool_calls).flatMap((item) => {
    const call = record(item);
    const fn = record(call?.function);
    if (!fn) return [];
    return [
      {
        type: "tool_call" as const,
        id: string(call?.id) || newToolCallId(),
        name: string(fn.name) ?? "",
        arguments: argumentsText(fn.arguments),
      },
    ];
  });
}

/** The non-streaming answer: one object with the message and the final fields (`done: true`). */
export function parseOllamaResponse(value: unknown): CanonicalResponse {
  const body = record(value);
  if (!body) throw malformed(PROVIDER, "the response body is not a JSON object");
  const error = embeddedErrorMessage(body);
  if (error !== undefined) throw malformed(PROVIDER, `the response is an error: ${error}`);
  const message = record(body.message);
  if (!message) throw malformed(PROVIDER, 'the response has no "message" object');
  const content: Array<TextPart | ToolCallPart> = [];
  const text = string(message.content);
  if (text) content.push({ type: "text", text });
  content.push(...toolCalls(message));
  const hasToolCalls = content.some((part) => part.type === "tool_call");
  return {
    // Ollama answers carry no id.
    id: "",
    model: string(body.model) ?? "",
    content,
    stopReason: ollamaStopReason(string(body.done_reason), hasToolCalls),
    usage: ollamaUsage(body),
  };
}

/**
 * The NDJSON stream: `done: false` objects with the next `message.content` (and whole tool calls,
 * since 0.8), then one `done: true` object with `done_reason` and the counts. A line
 * `{"error": "..."}` reports a failure after the stream started.
 */
export class OllamaStreamDecoder implements StreamDecoder {
  private lines = new NdjsonDecoder();
  private events = new StreamEvents();
  private calls = 0;

  push(chunk: string): CanonicalStreamEvent[] {
    return this.events.run(() => {
      for (const line of this.parse(() => this.lines.push(chunk))) this.line(line);
    });
  }

  end(): CanonicalStreamEvent[] {
    return this.events.run(() => {
      for (const line of this.parse(() => this.lines.end())) this.line(line);
      this.events.end();
    });
  }

  private parse(read: () => unknown[]): unknown[] {
    try {
      return read();
    } catch (error) {
      throw malformed(PROVIDER, error instanceof Error ? error.message : String(error));
    }
  }

  private line(value: unknown): void {
    const error = embeddedErrorMessage(value);
    if (error !== undefined) throw new ProviderError(PROVIDER, "stream_error", error);
    const chunk = record(value);
    if (!chunk) throw malformed(PROVIDER, "stream line is not a JSON object");
    this.events.start("", string(chunk.model) ?? "");
    const message = record(chunk.message);
    this.events.text(string(message?.content) ?? "");
    for (const call of toolCalls(message)) {
      const key = this.calls++;
      this.events.toolCallStart(key, call.id, call.name);
      this.events.toolCallDelta(key, call.arguments);
    }
    if (chunk.done === true) {
      this.events.usage(ollamaUsage(chunk));
      this.events.finish(ollamaStopReason(string(chunk.done_reason), this.events.hasToolCalls));
    }
  }
}
