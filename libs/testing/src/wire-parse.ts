/** Test helpers to read raw streamed bodies. */

export interface SseEvent {
  /** The `event:` name, when there is one. */
  event?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

/** Parse a whole SSE body into its events (comments and blank events skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0)
      events.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return events;
}

/** Parse a whole NDJSON body into its objects. */
export function parseNdjson(text: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
}
