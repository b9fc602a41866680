import { array, isRecord, record, string } from "./shape.js";

/**
 * Why an adapter gave up on an upstream answer:
 * - `malformed_response`: a success body (or stream frame) that is not the provider's documented shape;
 * - `stream_error`: the provider reported an error inside a stream that had already started
 *   (Anthropic `event: error`, an OpenAI `{"error":...}` chunk, an Ollama `{"error":...}` line).
 * The caller turns either into its upstream error; the message is safe to show.
 */
export type ProviderErrorReason = "malformed_response" | "stream_error";

export class ProviderError extends Error {
  readonly provider: string;
  readonly reason: ProviderErrorReason;

  constructor(provider: string, reason: ProviderErrorReason, message: string) {
    super(`${provider}: ${message}`);
    this.name = "ProviderError";
    this.provider = provider;
    this.reason = reason;
  }
}

export function malformed(provider: string, message: string): ProviderError {
  return new ProviderError(provider, "malformed_response", message);
}

/** The message of an error object found inside a stream, or undefined when the frame is not one. */
export function embeddedErrorMessage(value: unknown): string | undefined {
  const body = record(value);
  if (!body || body.error === undefined || body.error === null) return undefined;
  return messageOf(body) ?? "unknown error";
}

/**
 * The human message inside an error body, whatever the provider: OpenAI / xAI / Gemini / Anthropic
 * `{error:{message}}`, Cohere / Mistral `{message}`, Ollama / xAI `{error:"..."}`, FastAPI-style
 * validation errors `{detail:"..." | [{msg}]}` (Mistral 422), and Gemini's array-wrapped variant.
 */
export function messageOf(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length > 0 ? messageOf(value[0]) : undefined;
  if (!isRecord(value)) return undefined;
  const error = value.error;
  if (typeof error === "string" && error.trim()) return error.trim();
  if (isRecord(error)) {
    const nested = string(error.message);
    if (nested?.trim()) return nested.trim();
  }
  const message = string(value.message);
  if (message?.trim()) return message.trim();
  const detail = value.detail;
  if (typeof detail === "string" && detail.trim()) return detail.trim();
  const details = array(detail)
    .map((item) => {
      const entry = record(item);
      const msg = string(entry?.msg);
      const loc = array(entry?.loc).map(String).join(".");
      return msg ? (loc ? `${loc}: ${msg}` : msg) : undefined;
    })
    .filter((item): item is string => item !== undefined);
  return details.length > 0 ? details.join("; ") : undefined;
}

const SNIPPET = 200;

/**
 * `errorMessage` of every adapter: the provider's own message when the body is JSON we can read,
 * else a fallback naming the provider and the status, with a short plain-text body (never HTML:
 * gateways in front of providers answer with whole pages).
 */
export function providerErrorMessage(label: string, status: number, bodyText: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const message = messageOf(parsed);
  if (message) return message;
  const text = bodyText.trim();
  const fallback = `${label} returned HTTP ${status}`;
  if (parsed !== undefined || text === "" || text.startsWith("<")) return fallback;
  return `${fallback}: ${text.length > SNIPPET ? `${text.slice(0, SNIPPET)}...` : text}`;
}
