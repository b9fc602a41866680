/**
 * Server-sent-event frames. Payloads are JSON on one line (JSON.stringify never emits a raw
 * newline), so a frame is always exactly one `data:` line and never needs splitting.
 */

/** An unnamed frame: `data: <json>\n\n` (chat-completions chunks), or a literal such as `[DONE]`. */
export function sseData(payload: unknown): string {
  return `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
}

/** A named frame: `event: <name>\ndata: <json>\n\n` (responses and messages events). */
export function sseEvent(name: string, payload: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}
