import type { CanonicalRequest, CanonicalResponse, CanonicalStreamEvent } from "../canonical/types.js";

/** Provider kinds of SPEC.md / DESIGN.md section 4. */
export type ProviderKind =
  | "openai"
  | "anthropic"
  | "gemini"
  | "mistral"
  | "cohere"
  | "xai"
  | "ollama"
  | "custom";

export const PROVIDER_KINDS: readonly ProviderKind[] = [
  "openai",
  "anthropic",
  "gemini",
  "mistral",
  "cohere",
  "xai",
  "ollama",
  "custom",
];

/** Where and as whom to call: the model's base URL (or the kind's default), upstream model id, decrypted key. */
export interface UpstreamTarget {
  /** Without a trailing slash. */
  baseUrl: string;
  upstreamModel: string;
  apiKey: string | null;
}

export interface UpstreamHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Incremental decoder of a provider's streaming body (SSE or NDJSON) into canonical events.
 * Chunks may split lines and events anywhere.
 */
export interface StreamDecoder {
  push(chunk: string): CanonicalStreamEvent[];
  /** The body ended: flush what is buffered. */
  end(): CanonicalStreamEvent[];
}

export interface ProviderAdapter {
  kind: ProviderKind;
  /** Default base URL; null when the model must set `baseUrl` (custom). */
  defaultBaseUrl: string | null;
  /** The provider's own request for this canonical request (stream flag included). */
  buildRequest(request: CanonicalRequest, target: UpstreamTarget): UpstreamHttpRequest;
  /** A non-streaming success body (already JSON-parsed). Throws on a body it cannot read. */
  parseResponse(body: unknown): CanonicalResponse;
  createStreamDecoder(): StreamDecoder;
  /** The human message inside the provider's error body, or a fallback naming the status. */
  errorMessage(status: number, bodyText: string): string;
}
