/**
 * How the fake upstream answers the next requests. Every field works for every provider kind; the
 * reply itself (text, tool call, JSON, usage) is decided in `fake-reply.ts`.
 */
export interface FakeBehaviour {
  /** Non-2xx: answer with the provider's own error body for that status. */
  status?: number;
  /** Error message in the error body (default: a message typical of the provider for the status). */
  errorMessage?: string;
  /**
   * Seconds in the `retry-after` header, sent with any status (usually 429 or 503). Gemini errors also
   * carry it as a `google.rpc.RetryInfo` detail.
   */
  retryAfterSeconds?: number;
  /** Delay before the response headers, ms. */
  latencyMs?: number;
  /**
   * Reply text, replacing the default (`Echo: <last user text>`, `Tool result: <text>` or the JSON-mode
   * `{"echo":...}`). It does not stop a tool call: set `toolCall: false` for that.
   */
  content?: string;
  /** Set false to answer with text even when the request defines tools. */
  toolCall?: boolean;
  /** Arguments of the tool call (default `{ "query": "<last user text>" }`). */
  toolArguments?: Record<string, unknown>;
  /** Delay between stream chunks, ms (0 = write them in one go). */
  chunkDelayMs?: number;
  /** Stream: send this many content chunks, then hang without ending (until the client aborts). */
  stallAfterChunks?: number;
  /** Stream: destroy the connection after this many content chunks. */
  dropAfterChunks?: number;
  /** Cached prompt tokens to report in usage (each provider's own cache field). */
  cachedTokens?: number;
  /**
   * OpenAI-compatible streams: report usage even without `stream_options.include_usage`, the way
   * Mistral does (usage on the chunk that carries `finish_reason`). With `include_usage` the separate
   * OpenAI usage chunk is sent as usual.
   */
  alwaysStreamUsage?: boolean;
}

/** Which provider API a request hit; `echo` is anything else. */
export type FakeKind = "openai" | "anthropic" | "gemini" | "cohere" | "ollama" | "echo";

export interface RecordedRequest {
  method: string;
  /** Path with the query string, as received. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The provider API the request was routed to. */
  kind: FakeKind;
  /** True when the client went away before the response finished. */
  aborted: boolean;
}
