/**
 * What a push format produces: one HTTP POST, fully built. `push.ts` sends it; the formats stay
 * pure (no I/O) so each can be unit tested on its bytes.
 */
export interface PushRequest {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
  /** How many series the body carries, for the result message. */
  series: number;
  /**
   * Values that must never appear in a result message: the integration's secrets and any
   * derived form sent on the wire (a basic-auth base64, a "Token x" header...).
   */
  secrets: string[];
}

/** Headers a user may not set: the transport owns them. */
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection"]);

/**
 * The integration's own headers (names lowercased, transport headers dropped) under the format's
 * headers: a user header never replaces the content type or the signature.
 */
export function mergeHeaders(
  user: Record<string, string> | undefined,
  ours: Record<string, string>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(user ?? {})) {
    const key = name.toLowerCase();
    if (!RESERVED_HEADERS.has(key)) merged[key] = value;
  }
  for (const [name, value] of Object.entries(ours)) merged[name.toLowerCase()] = value;
  return merged;
}
