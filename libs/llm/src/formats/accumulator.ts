import {
  type CanonicalResponse,
  type CanonicalStreamEvent,
  type CanonicalUsage,
  EMPTY_USAGE,
  type StopReason,
  type TextPart,
  type ToolCallPart,
} from "../canonical/types.js";
import type { RenderContext } from "./types.js";

/**
 * Folds canonical stream events into the CanonicalResponse produced so far. Every stream encoder
 * owns one, so `snapshot()` is the same in all three formats: the responses format stores it for
 * `previous_response_id`, and billing charges what was produced even when a stream is cut short.
 */
export class StreamAccumulator {
  private id: string;
  private model: string;
  private readonly content: Array<TextPart | ToolCallPart> = [];
  /** Open tool calls by the event's index (not their position in `content`). */
  private readonly toolCalls = new Map<number, ToolCallPart>();
  private finishReason: StopReason | undefined;
  private usage: CanonicalUsage | undefined;
  private failed = false;

  constructor(context: RenderContext) {
    this.id = context.id;
    this.model = context.model;
  }

  apply(event: CanonicalStreamEvent): void {
    switch (event.type) {
      case "start":
        this.id = event.id || this.id;
        this.model = event.model || this.model;
        return;
      case "text": {
        if (event.text === "") return;
        const last = this.content.at(-1);
        // Consecutive text deltas are one text part, as a non-streaming response would have it.
        if (last?.type === "text") last.text += event.text;
        else this.content.push({ type: "text", text: event.text });
        return;
      }
      case "tool_call_start": {
        const call: ToolCallPart = { type: "tool_call", id: event.id, name: event.name, arguments: "" };
        this.content.push(call);
        this.toolCalls.set(event.index, call);
        return;
      }
      case "tool_call_delta": {
        const call = this.toolCalls.get(event.index);
        if (call) call.arguments += event.arguments;
        return;
      }
      case "finish":
        this.finishReason = event.stopReason;
        return;
      case "usage":
        // The last usage event wins (providers may report partial usage early).
        this.usage = { ...event.usage };
        return;
    }
  }

  /** The stream failed after the first byte: the snapshot's stop reason becomes `error`. */
  fail(): void {
    this.failed = true;
  }

  get hasToolCalls(): boolean {
    return this.toolCalls.size > 0;
  }

  /** The finish event's reason; without one, `tool_calls` when calls were made, else `stop`. */
  get stopReason(): StopReason {
    if (this.failed) return "error";
    return this.finishReason ?? (this.hasToolCalls ? "tool_calls" : "stop");
  }

  get knownUsage(): CanonicalUsage | undefined {
    return this.usage;
  }

  snapshot(): CanonicalResponse {
    return {
      id: this.id,
      model: this.model,
      // Copies, so a stored snapshot does not change as the stream goes on.
      content: this.content.map((part) => ({ ...part })),
      stopReason: this.stopReason,
      usage: { ...(this.usage ?? EMPTY_USAGE) },
    };
  }
}
