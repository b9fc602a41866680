import { Errors, GatewayError, UpstreamError } from "@gw/errors";
import { ProviderError, type UpstreamHttpRequest } from "@gw/llm";
import { Agent, type Dispatcher, request, errors as undiciErrors } from "undici";

/**
 * HTTP to upstream providers: one keep-alive connection pool per ingress (undici), timeouts that
 * become 504, client disconnects that abort the upstream request. What to send is decided by the
 * upstream plan (native or translated); this module only moves bytes.
 */
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

export async function sendUpstream(options: {
  dispatcher: Dispatcher;
  http: UpstreamHttpRequest;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<UpstreamResponse> {
  try {
    const response = await request(options.http.url, {
      method: "POST",
      headers: options.http.headers,
      body: options.http.body,
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
  // The provider answered, but not in its documented shape, or reported an error mid-stream.
  if (error instanceof ProviderError)
    return Errors.upstream(
      error.reason === "stream_error"
        ? `The provider reported an error during the stream: ${error.message}`
        : `The provider's answer could not be read: ${error.message}`,
    );
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
