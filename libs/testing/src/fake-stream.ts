import type { ServerResponse } from "node:http";
import type { FakeBehaviour } from "./fake-behaviour.js";

/**
 * One piece of a streamed body, already in wire form (an SSE event, an NDJSON line, ...). `content`
 * marks the pieces that carry generated text or tool arguments: `stallAfterChunks` and
 * `dropAfterChunks` count those.
 */
export interface StreamFrame {
  text: string;
  content: boolean;
}

/** An SSE event: `event:` line when named, then the `data:` line. */
export function sse(data: string, event?: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}

function withRetryAfter(behaviour: FakeBehaviour, headers: Record<string, string>): Record<string, string> {
  if (behaviour.retryAfterSeconds !== undefined) headers["retry-after"] = String(behaviour.retryAfterSeconds);
  return headers;
}

/** A JSON response; `retry-after` when the behaviour asks for it. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  behaviour: FakeBehaviour,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, withRetryAfter(behaviour, { "content-type": "application/json", ...headers }));
  res.end(JSON.stringify(body));
}

/**
 * A streamed 200 response honouring `chunkDelayMs`, `stallAfterChunks` and `dropAfterChunks`. Without
 * those it writes the whole body at once (the cheap path benchmarks use).
 */
export function sendStream(
  res: ServerResponse,
  behaviour: FakeBehaviour,
  contentType: string,
  frames: StreamFrame[],
  headers: Record<string, string> = {},
): void {
  res.writeHead(
    200,
    withRetryAfter(behaviour, {
      "content-type": contentType,
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...headers,
    }),
  );
  const { stallAfterChunks: stall, dropAfterChunks: drop, chunkDelayMs: delay } = behaviour;
  // Send the headers now when the body may be late or never come, as a real server would.
  if (stall !== undefined || drop !== undefined || delay) res.flushHeaders();
  let index = 0;
  let contentSent = 0;
  const writeNext = (): void => {
    if (res.destroyed) return;
    let batch = "";
    while (index < frames.length) {
      if (stall !== undefined && contentSent >= stall) {
        if (batch) res.write(batch);
        return;
      }
      if (drop !== undefined && contentSent >= drop) {
        const destroy = () => res.socket?.destroy();
        if (batch) res.write(batch, destroy);
        else destroy();
        return;
      }
      const frame = frames[index++]!;
      if (frame.content) contentSent++;
      if (delay) {
        res.write(frame.text);
        setTimeout(writeNext, delay);
        return;
      }
      batch += frame.text;
    }
    res.end(batch);
  };
  writeNext();
}
