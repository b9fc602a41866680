import { type CanonicalResponse, type CanonicalStreamEvent, EMPTY_USAGE } from "../canonical/types.js";
import { StreamAccumulator } from "./accumulator.js";
import { messagesStopReason, messagesUsage } from "./messages-render.js";
import { sseEvent } from "./sse.js";
import type { RenderContext, StreamEncoder, TraceInfo, WireError } from "./types.js";

/**
 * Canonical events -> Anthropic Messages SSE: message_start, then content blocks one at a time
 * (content_block_start / _delta / _stop), then message_delta (stop reason, usage) and
 * message_stop. Each frame is `event: <type>` with the same `type` inside the JSON.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export class MessagesStreamEncoder implements StreamEncoder {
  private readonly accumulator: StreamAccumulator;
  private started = false;
  private closed = false;
  private nextBlock = 0;
  /** The block being written; Anthropic streams blocks strictly one after another. */
  private openBlock: { index: number; kind: "text" | "tool_use" } | undefined;
  /** The event's tool-call index -> that call's content-block index. */
  private readonly toolBlocks = new Map<number, number>();

  constructor(private readonly context: RenderContext) {
    this.accumulator = new StreamAccumulator(context);
  }

  /**
   * An event type no SDK knows: the TypeScript SDK yields it from raw streams and its MessageStream
   * ignores it (before message_start it has no snapshot to touch); Python yields only known types.
   */
  trace(info: TraceInfo): string {
    if (this.closed) return "";
    return sseEvent("trace", {
      type: "trace",
      model: info.model,
      provider: info.provider,
      policies: info.policies,
      costEstimate: info.costEstimate,
    });
  }

  event(event: CanonicalStreamEvent): string {
    if (this.closed) return "";
    this.accumulator.apply(event);
    const prefix = this.start();
    switch (event.type) {
      case "start":
      case "usage":
        return prefix;
      case "text": {
        if (event.text === "") return prefix;
        let out = prefix;
        if (this.openBlock?.kind !== "text") {
          out += this.closeBlock();
          out += this.openNewBlock("text", { type: "text", text: "" });
        }
        return (
          out +
          this.frame("content_block_delta", {
            index: this.openBlock?.index ?? 0,
            delta: { type: "text_delta", text: event.text },
          })
        );
      }
      case "tool_call_start": {
        const out = prefix + this.closeBlock();
        const block = this.openNewBlock("tool_use", {
          type: "tool_use",
          id: event.id,
          name: event.name,
          input: {},
        });
        this.toolBlocks.set(event.index, this.nextBlock - 1);
        return out + block;
      }
      case "tool_call_delta": {
        const index = this.toolBlocks.get(event.index);
        if (index === undefined || event.arguments === "") return prefix;
        // Deltas of an earlier, already stopped call (interleaved parallel calls) keep its index;
        // the SDK accumulates by index, and nothing is lost.
        return (
          prefix +
          this.frame("content_block_delta", {
            index,
            delta: { type: "input_json_delta", partial_json: event.arguments },
          })
        );
      }
      case "finish":
        return prefix + this.closeBlock();
    }
  }

  /** message_delta carries the final usage: input_tokens too, since it is often only known now. */
  end(): string {
    if (this.closed) return "";
    const out = this.start() + this.closeBlock();
    this.closed = true;
    return (
      out +
      this.frame("message_delta", {
        delta: { stop_reason: messagesStopReason(this.accumulator.stopReason), stop_sequence: null },
        usage: messagesUsage(this.accumulator.knownUsage ?? EMPTY_USAGE),
      }) +
      this.frame("message_stop", {})
    );
  }

  /** The SDKs throw APIError on `event: error`; the real API sends nothing after it. */
  error(error: WireError): string {
    if (this.closed) return "";
    this.closed = true;
    this.accumulator.fail();
    return this.frame("error", { error: { type: error.type, message: error.message, code: error.code } });
  }

  snapshot(): CanonicalResponse {
    return this.accumulator.snapshot();
  }

  private frame(type: string, payload: Record<string, unknown>): string {
    return sseEvent(type, { type, ...payload });
  }

  private start(): string {
    if (this.started) return "";
    this.started = true;
    return this.frame("message_start", {
      message: {
        id: this.context.id,
        type: "message",
        role: "assistant",
        model: this.context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: messagesUsage(this.accumulator.knownUsage ?? EMPTY_USAGE),
      },
    });
  }

  private openNewBlock(kind: "text" | "tool_use", contentBlock: Record<string, unknown>): string {
    const index = this.nextBlock++;
    this.openBlock = { index, kind };
    return this.frame("content_block_start", { index, content_block: contentBlock });
  }

  private closeBlock(): string {
    if (!this.openBlock) return "";
    const { index } = this.openBlock;
    this.openBlock = undefined;
    return this.frame("content_block_stop", { index });
  }
}
