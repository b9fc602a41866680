import type { UpstreamHttpRequest } from "./types.js";

/** A JSON POST: content type, the accepted answer type, the provider's auth headers, the body as text. */
export function jsonPost(
  url: string,
  accept: string,
  auth: Record<string, string>,
  body: unknown,
): UpstreamHttpRequest {
  return {
    url,
    headers: { "content-type": "application/json", accept, ...auth },
    body: JSON.stringify(body),
  };
}

/** `Authorization: Bearer <key>` when there is a key; no header otherwise (local servers, Ollama). */
export function bearer(apiKey: string | null): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}
