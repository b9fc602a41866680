import type { ModelConfig } from "@gw/config-store";
import { Errors, GatewayError, UpstreamError } from "@gw/errors";
import { Agent, type Dispatcher, request, errors as undiciErrors } from "undici";

/**
 * HTTP to upstream providers: one keep-alive connection pool per ingress (undici), timeouts that
 * become 504, client disconnects that abort the upstream request.
 *
 * This issue speaks the OpenAI chat-completions API (`openai`, `custom`, and the OpenAI-compatible
 * `xai` and `mistral` endpoints); the provider adapters for every kind arrive with the proxy-surface
 * issue and plug in at `upstreamBaseUrl`.
 */
const DEFAULT_BASE_URLS: Record<string, string> = {
  openai: "https://api.openai.com/v1",
  xai: "https://api.x.ai/v1",
  mistral: "https://api.mistral.ai/v1",
};

export function upstreamBaseUrl(model: ModelConfig): string {
  const base = model.baseUrl ?? DEFAULT_BASE_URLS[model.provider];
  if (!base) {
    throw new GatewayError({
      code: "provider_unsupported",
      type: "upstream_error",
      status: 502,
      message: `Model ${model.id}: provider kind "${model.provider}" has no adapter in this build.`,
    });
  }
  return base.replace(/\/$/, "");
}

export function createUpstreamDispatcher(): Dispatcher {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: 256,
    pipelining: 1,
  });
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

export async function postJson(options: {
  dispatcher: Dispatcher;
  url: string;
  apiKey: string | null;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<UpstreamResponse> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  try {
    const response = await request(options.url, {
      method: "POST",
      headers,
      body: options.body,
      dispatcher: options.dispatcher,
      signal: options.signal,
      // Time to the response headers, then between body chunks: a stalled stream also times out.
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  } catch (error) {
    throw mapTransportError(error, options.timeoutMs);
  }
}

export function mapTransportError(error: unknown, timeoutMs: number): Error {
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return Errors.timeout(timeoutMs);
  }
  if (error instanceof GatewayError) return error;
  if ((error as Error)?.name === "AbortError") return error as Error;
  return new UpstreamError({
    message: `upstream unreachable: ${(error as Error)?.message ?? "unknown"}`,
    status: 0,
    cause: error,
  });
}

/** Retry-After in seconds or an HTTP date, as ms. */
export function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}
