/**
 * One internal error type for the whole gateway. `code` is the machine-readable code that ends up
 * in the client's error envelope; `type` its category; `status` the HTTP status at the edge.
 * Renderers per protocol live at the edge (ingress answers in the client's wire shape).
 */
export class GatewayError extends Error {
  override readonly name = "GatewayError";
  readonly code: string;
  readonly type: string;
  readonly status: number;
  readonly retryable: boolean;

  constructor(options: {
    code: string;
    message: string;
    status: number;
    type?: string;
    retryable?: boolean;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.type = options.type ?? options.code;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}

/** A failed upstream call: status (0 for network failures), body excerpt, and whether a retry on another model may help. */
export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  readonly status: number;
  readonly body: string;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(options: {
    message: string;
    status: number;
    body?: string;
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.status = options.status;
    this.body = (options.body ?? "").slice(0, 2000);
    this.retryAfterMs = options.retryAfterMs;
    this.isRetryable =
      options.status === 0 || options.status === 408 || options.status === 429 || options.status >= 500;
  }
}

/** The proxy error envelope: `{ error: { message, type, code } }`. */
export interface ErrorEnvelope {
  error: { message: string; type: string; code: string };
}

export function errorEnvelope(error: { message: string; type: string; code: string }): ErrorEnvelope {
  return { error: { message: error.message, type: error.type, code: error.code } };
}

/** Common gateway errors, so every place raises them with the same code and status. */
export const Errors = {
  invalidToken: () =>
    new GatewayError({
      code: "invalid_api_key",
      type: "authentication_error",
      status: 401,
      message: "Invalid or missing project token.",
    }),
  badRequest: (message: string) =>
    new GatewayError({ code: "invalid_request", type: "invalid_request_error", status: 400, message }),
  noCandidates: (reason: string) =>
    new GatewayError({
      code: "no_candidates",
      type: "service_unavailable",
      status: 503,
      message: `No model can serve this request: ${reason}`,
    }),
  /** `scope` is `<level>:<name>` (project:acme, token:ci, group:team, model:gpt-4o). */
  budgetExceeded: (scope: string, metric: string, window?: { label: string; limit: number }) =>
    new GatewayError({
      code: "budget_exceeded",
      type: "budget_exceeded",
      status: 503,
      message: window
        ? `Budget exhausted for ${scope} (${metric}, ${window.label} limit ${window.limit}).`
        : `Budget exhausted for ${scope} (${metric}).`,
    }),
  /** Routing or budget cannot be reached: the request is refused (fail closed), never sent unchecked. */
  serviceUnavailable: (service: "routing" | "budget" | "admin-api") =>
    new GatewayError({
      code: `${service.replace("-", "_")}_unavailable`,
      type: "service_unavailable",
      status: 503,
      retryable: true,
      message:
        service === "budget"
          ? "Budgets cannot be checked right now; the request was not sent."
          : service === "routing"
            ? "No model can be chosen right now (routing unreachable); the request was not sent."
            : "The management API cannot be reached right now.",
    }),
  timeout: (ms: number) =>
    new GatewayError({
      code: "timeout",
      type: "timeout_error",
      status: 504,
      message: `The provider did not answer within ${ms} ms.`,
    }),
  upstream: (message: string) =>
    new GatewayError({ code: "upstream_error", type: "upstream_error", status: 502, message }),
  accountingUnavailable: () =>
    new GatewayError({
      code: "accounting_unavailable",
      type: "service_unavailable",
      status: 503,
      retryable: true,
      message: "Usage cannot be recorded right now (outbox full); the request was not sent.",
    }),
  notFound: (message = "Not found.") =>
    new GatewayError({ code: "not_found", type: "not_found_error", status: 404, message }),
};
