import { malformed } from "./errors.js";
import { type JsonRecord, record } from "./shape.js";
import { SseDecoder, type SseEvent } from "./sse-decoder.js";
import { StreamEvents } from "./stream-events.js";
import type { StreamDecoder } from "./types.js";

/**
 * The common frame of the SSE providers (OpenAI-compatible, Anthropic, Gemini, Cohere): SSE events
 * whose `data:` is one JSON object, blank and `[DONE]` frames skipped, anything else that is not a
 * JSON object refused as malformed. Each provider only says what one object means.
 */
export abstract class SseJsonStreamDecoder implements StreamDecoder {
  private readonly sse = new SseDecoder();
  protected readonly events = new StreamEvents();

  protected constructor(private readonly provider: string) {}

  push(chunk: string) {
    return this.events.run(() => {
      for (const event of this.sse.push(chunk)) this.frame(event);
    });
  }

  end() {
    return this.events.run(() => {
      for (const event of this.sse.end()) this.frame(event);
      this.events.end();
    });
  }

  /** One JSON object of the stream; `eventName` is the SSE `event:` field ("message" when absent). */
  protected abstract onObject(object: JsonRecord, eventName: string): void;

  private frame(event: SseEvent): void {
    const data = event.data.trim();
    if (data === "" || data === "[DONE]") return;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      throw malformed(this.provider, `stream chunk is not JSON: ${data.slice(0, 120)}`);
    }
    const object = record(value);
    if (!object) throw malformed(this.provider, "stream chunk is not a JSON object");
    this.onObject(object, event.event);
  }
}
