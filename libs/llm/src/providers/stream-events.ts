import type { CanonicalStreamEvent, CanonicalUsage, StopReason } from "../canonical/types.js";

/**
 * The ordering rules every stream decoder shares, in one place: `start` first and once; tool-call
 * indexes counted from 0 in order of appearance (providers key calls by content-block index,
 * choice-local index or nothing at all); `finish` once; usage after `finish`. Usage that arrives
 * early (Anthropic's `message_start`, Gemini's per-chunk `usageMetadata`) is held and released
 * with `finish`, and later updates are emitted as they come (the last one wins downstream). A
 * stream cut before its finish still releases the usage it saw, so the tokens can be billed.
 */
export class StreamEvents {
  private events: CanonicalStreamEvent[] = [];
  private started = false;
  private finished = false;
  private heldUsage: CanonicalUsage | undefined;
  private toolIndexes = new Map<string | number, number>();
  private toolCount = 0;
  private failure: { error: unknown } | undefined;

  get hasStarted(): boolean {
    return this.started;
  }

  get hasFinished(): boolean {
    return this.finished;
  }

  get hasToolCalls(): boolean {
    return this.toolCount > 0;
  }

  start(id: string, model: string): void {
    if (this.started) return;
    this.started = true;
    this.events.push({ type: "start", id, model });
  }

  text(text: string): void {
    if (text === "") return;
    this.ensureStarted();
    this.events.push({ type: "text", text });
  }

  /** Opens a tool call under the provider's key (block index, choice index, ...); returns its index. */
  toolCallStart(key: string | number, id: string, name: string): number {
    this.ensureStarted();
    const index = this.toolCount++;
    this.toolIndexes.set(key, index);
    this.events.push({ type: "tool_call_start", index, id, name });
    return index;
  }

  /** Whether a call is open under this provider key. */
  hasToolCall(key: string | number): boolean {
    return this.toolIndexes.has(key);
  }

  toolCallDelta(key: string | number, args: string): void {
    const index = this.toolIndexes.get(key);
    if (index === undefined || args === "") return;
    this.events.push({ type: "tool_call_delta", index, arguments: args });
  }

  finish(stopReason: StopReason): void {
    if (this.finished) return;
    this.ensureStarted();
    this.finished = true;
    this.events.push({ type: "finish", stopReason });
    if (this.heldUsage) {
      this.events.push({ type: "usage", usage: this.heldUsage });
      this.heldUsage = undefined;
    }
  }

  usage(usage: CanonicalUsage): void {
    if (this.finished) {
      this.events.push({ type: "usage", usage });
      return;
    }
    this.heldUsage = usage;
  }

  /** The stream ended: releases usage held for a finish that never came. */
  end(): void {
    if (!this.heldUsage) return;
    this.ensureStarted();
    this.events.push({ type: "usage", usage: this.heldUsage });
    this.heldUsage = undefined;
  }

  /**
   * Runs one decoder step (a push or the end) and returns the events it produced. When the step
   * fails (an error frame, a malformed chunk) after producing events, those events are returned
   * first and the error is thrown by the next call, so nothing decoded before the failure is lost.
   * A failed decoder keeps failing.
   */
  run(step: () => void): CanonicalStreamEvent[] {
    if (this.failure) throw this.failure.error;
    try {
      step();
    } catch (error) {
      this.failure = { error };
      if (this.events.length === 0) throw error;
    }
    return this.take();
  }

  /** The events produced since the last call. */
  take(): CanonicalStreamEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  private ensureStarted(): void {
    if (!this.started) this.start("", "");
  }
}
