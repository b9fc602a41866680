/**
 * Incremental Server-Sent Events parser, after the WHATWG "event stream interpretation" rules:
 * lines end in `\n`, `\r\n` or `\r`; `:` lines are comments (keep-alives); `event:` names the
 * event; several `data:` lines join with `\n`; a blank line dispatches; one space after the colon
 * is dropped. Network chunks may split a line, a `\r\n` pair or an event anywhere, so everything
 * after the last complete line waits in `buffer` for the next chunk.
 */

export interface SseEvent {
  /** The `event:` field, "message" when the event had none. */
  event: string;
  data: string;
  /** The last `id:` seen, when there was one. */
  id?: string;
}

const LF = 10;
const CR = 13;

export class SseDecoder {
  private buffer = "";
  private sawFirstChunk = false;
  private dataLines: string[] = [];
  private eventType = "";
  private lastId: string | undefined;

  push(chunk: string): SseEvent[] {
    let text = this.buffer + chunk;
    if (!this.sawFirstChunk && text.length > 0) {
      this.sawFirstChunk = true;
      // The stream may start with a byte-order mark; it is not part of the first field name.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const events: SseEvent[] = [];
    let lineStart = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      // A final `\r` may be the first half of `\r\n`: wait for the next chunk to know.
      if (code === CR && i === text.length - 1) break;
      this.line(text.slice(lineStart, i), events);
      if (code === CR && text.charCodeAt(i + 1) === LF) i++;
      lineStart = i + 1;
    }
    this.buffer = text.slice(lineStart);
    return events;
  }

  /**
   * The body ended. The spec drops an event that was not followed by a blank line, but some
   * servers close right after their last `data:` line; delivering it loses nothing.
   */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    const rest = this.buffer.endsWith("\r") ? this.buffer.slice(0, -1) : this.buffer;
    this.buffer = "";
    if (rest !== "") this.line(rest, events);
    this.line("", events);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.dataLines.length > 0) {
        const event: SseEvent = { event: this.eventType || "message", data: this.dataLines.join("\n") };
        if (this.lastId !== undefined) event.id = this.lastId;
        events.push(event);
      }
      this.dataLines = [];
      this.eventType = "";
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.dataLines.push(value);
    else if (field === "event") this.eventType = value;
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
    // `retry:` and unknown fields are ignored, as the spec says.
  }
}
