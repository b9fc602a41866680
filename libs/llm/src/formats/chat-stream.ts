import type { CanonicalResponse, CanonicalStreamEvent } from "../canonical/types.js";
import { StreamAccumulator } from "./accumulator.js";
import { chatFinishReason, chatUsage } from "./chat-render.js";
import { sseData } from "./sse.js";
import type { RenderContext, StreamEncoder, TraceInfo, WireError } from "./types.js";

/**
 * Canonical events -> chat-completions SSE: `data: <chat.completion.chunk>` frames, then
 * `data: [DONE]`. The usage chunk (`choices: []`) comes last, as with
 * `stream_options.include_usage`, because usage may arrive before or after the finish event.
 * @see https://platform.openai.com/docs/api-reference/chat/streaming
 */
export class ChatStreamEncoder implements StreamEncoder {
  private readonly accumulator: StreamAccumulator;
  private roleSent = false;
  private finishSent = false;
  private closed = false;
  /** The event's tool-call index -> the dense 0-based index the client sees. */
  private readonly toolIndexes = new Map<number, number>();

  constructor(private readonly context: RenderContext) {
    this.accumulator = new StreamAccumulator(context);
  }

  /**
   * Chunk-shaped so SDKs skip it: `choices: []` yields nothing to `choices[0]?.delta` readers, and
   * the extra fields are ignored. `model` is the routed model, which is what the trace reports.
   */
  trace(info: TraceInfo): string {
    if (this.closed) return "";
    return sseData({
      id: this.context.id,
      object: "chat.completion.chunk",
      created: this.context.created,
      model: info.model,
      choices: [],
      type: "trace",
      provider: info.provider,
      policies: info.policies,
      costEstimate: info.costEstimate,
    });
  }

  event(event: CanonicalStreamEvent): string {
    if (this.closed) return "";
    this.accumulator.apply(event);
    switch (event.type) {
      case "start":
        return this.role();
      case "text":
        if (event.text === "") return "";
        // Besides the standard `choices[0].delta.content`, text chunks carry a top-level
        // `type: "content"` and `delta: <text>` (our design): simple clients read those, and the
        // SDKs ignore unknown top-level fields.
        return (
          this.role() +
          sseData({ ...this.chunk({ content: event.text }, null), type: "content", delta: event.text })
        );
      case "tool_call_start": {
        const index = this.toolIndexes.size;
        this.toolIndexes.set(event.index, index);
        const call = { index, id: event.id, type: "function", function: { name: event.name, arguments: "" } };
        return this.role() + sseData(this.chunk({ tool_calls: [call] }, null));
      }
      case "tool_call_delta": {
        const index = this.toolIndexes.get(event.index);
        // A delta for a call that never started has no id or name to attach to: dropped.
        if (index === undefined || event.arguments === "") return "";
        return sseData(
          this.chunk({ tool_calls: [{ index, function: { arguments: event.arguments } }] }, null),
        );
      }
      case "finish":
        return this.finish();
      case "usage":
        return "";
    }
  }

  end(): string {
    if (this.closed) return "";
    let out = this.finish();
    const usage = this.accumulator.knownUsage;
    if (usage) {
      out += sseData({
        id: this.context.id,
        object: "chat.completion.chunk",
        created: this.context.created,
        model: this.context.model,
        choices: [],
        usage: chatUsage(usage),
      });
    }
    this.closed = true;
    return out + sseData("[DONE]");
  }

  /** A data frame with an `error` key: the openai SDKs throw APIError on it. No [DONE] follows. */
  error(error: WireError): string {
    if (this.closed) return "";
    this.closed = true;
    this.accumulator.fail();
    return sseData({ error: { message: error.message, type: error.type, code: error.code } });
  }

  snapshot(): CanonicalResponse {
    return this.accumulator.snapshot();
  }

  /** The first chunk announces the role, with empty content, as the API does. */
  private role(): string {
    if (this.roleSent) return "";
    this.roleSent = true;
    return sseData(this.chunk({ role: "assistant", content: "" }, null));
  }

  private finish(): string {
    if (this.finishSent) return "";
    this.finishSent = true;
    return this.role() + sseData(this.chunk({}, chatFinishReason(this.accumulator.stopReason)));
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null) {
    return {
      id: this.context.id,
      object: "chat.completion.chunk",
      created: this.context.created,
      model: this.context.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
  }
}
