import type { CanonicalRequest, CanonicalResponse, CanonicalStreamEvent } from "../canonical/types.js";

/** The three wire formats clients speak to the proxy. */
export type ClientFormatName = "chat" | "responses" | "messages";

/** A client request parsed into the hub, plus what only one format carries. */
export interface ParsedClientRequest {
  request: CanonicalRequest;
  /** responses: `previous_response_id`, resolved by the caller from stored responses. */
  previousResponseId?: string;
  /** responses: `store` (default true); whether the caller keeps the response for later turns. */
  store?: boolean;
}

/** What a renderer needs beyond the canonical response. */
export interface RenderContext {
  /**
   * The id the client sees, already in the format's shape: `chatcmpl-<traceId>`,
   * `resp_<traceId-without-dashes>`, `msg_<traceId>`.
   */
  id: string;
  /** The `model` the client asked for (messages echoes it back), or the served model. */
  model: string;
  /** Unix seconds. */
  created: number;
  /** responses: the request's instructions / previous id, echoed in the Response object. */
  previousResponseId?: string;
  instructions?: string;
  /**
   * responses: the parsed request, so the Response object echoes its settings (tools,
   * tool_choice, temperature, top_p, max_output_tokens, text format, user) as the API does.
   * Optional: without it those fields take their defaults.
   */
  request?: CanonicalRequest;
}

/** The routing summary of the first SSE event (DESIGN.md section 4). */
export interface TraceInfo {
  model: string;
  provider: string;
  policies: string[];
  /** USD. */
  costEstimate: number;
}

/** The proxy error envelope's inner fields. */
export interface WireError {
  message: string;
  type: string;
  code: string;
}

/**
 * Turns canonical stream events into one client format's SSE text. Stateful: it tracks open
 * content blocks / output items / tool-call indexes so the client sees a valid sequence.
 * Every method returns ready-to-write SSE text ("" when the event maps to nothing).
 */
export interface StreamEncoder {
  /** The `trace` event (DESIGN.md section 4); the caller omits it on `x-service-no-trace: 1`. */
  trace(info: TraceInfo): string;
  event(event: CanonicalStreamEvent): string;
  /** Normal end: closes open blocks and writes the terminal event(s) (`[DONE]`, `message_stop`, `response.completed`). */
  end(): string;
  /** Failure after the first byte: the format's error event, then its terminal event when it has one. */
  error(error: WireError): string;
  /** The response assembled so far (responses format stores it for `previous_response_id`). */
  snapshot(): CanonicalResponse;
}

export interface ClientFormat {
  name: ClientFormatName;
  /** Validates and converts; throws `Errors.badRequest` with a message naming the field. */
  parseRequest(body: unknown): ParsedClientRequest;
  renderResponse(response: CanonicalResponse, context: RenderContext): unknown;
  createStreamEncoder(context: RenderContext): StreamEncoder;
  /** The error body in this format (messages adds top-level `type: "error"`). */
  renderError(error: WireError): unknown;
}
