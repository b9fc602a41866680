import type { IncomingHttpHeaders } from "node:http";

/** Headers that describe one connection, not the message; never forwarded either way. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  // Upstreams answer uncompressed (see below), so a stale encoding header must not go back.
  "content-encoding",
]);

/** Client credentials of any provider style; replaced by the model's key. */
const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key"]);

/**
 * The client's headers as forwarded upstream: hop-by-hop headers and every client credential
 * removed, the model's key set in its kind's own header.
 */
export function forwardedHeaders(
  incoming: IncomingHttpHeaders,
  provider: string,
  apiKey: string | null,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || CREDENTIAL_HEADERS.has(name)) continue;
    // Upstream answers uncompressed so the body can be streamed back without its encoding header.
    if (name === "accept-encoding") continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  if (!apiKey) return headers;
  if (provider === "anthropic") {
    headers["x-api-key"] = apiKey;
    headers["anthropic-version"] ??= "2023-06-01";
  } else if (provider === "gemini") headers["x-goog-api-key"] = apiKey;
  else headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/** The upstream's response headers as returned to the client: hop-by-hop headers removed. */
export function returnedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

/** Request headers minus hop-by-hop ones, credentials kept: for the management API behind ingress. */
export function endToEndHeaders(incoming: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}
