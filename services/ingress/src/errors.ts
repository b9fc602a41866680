import { errorEnvelope, GatewayError, UpstreamError } from "@gw/errors";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/**
 * The one error renderer of the proxy: every failure answers in the `{ error: { message, type,
 * code } }` envelope. Client mistakes (bad JSON, too large, wrong type) are 4xx with a clear
 * message, never 5xx; internal failures are logged with their stack and answered without it.
 */
export function renderError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (reply.sent || reply.raw.headersSent) return;
  const { status, body } = toResponse(error);
  // A budget refusal is a 503 by contract but policy working as configured, not a failure: no stack.
  const refusal = status < 500 || body.error.code === "budget_exceeded";
  if (refusal)
    request.log.info({ status, code: body.error.code, reason: body.error.message }, "request refused");
  else request.log.error({ err: error }, "request failed");
  // The messages SDK reads errors as `{ type: "error", error: { type, message } }`.
  const wire = isMessagesPath(request.url) ? { type: "error", ...body } : body;
  void reply.code(status).header("content-type", "application/json").send(wire);
}

function isMessagesPath(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  return path.endsWith("/v1/messages") || path.endsWith("/v1/messages/count_tokens");
}

/** The HTTP status a failure is answered with (also what its usage record stores). */
export function clientStatusOf(error: unknown): number {
  return toResponse(error).status;
}

function toResponse(error: unknown) {
  if (error instanceof GatewayError) return { status: error.status, body: errorEnvelope(error) };
  if (error instanceof UpstreamError) return upstreamResponse(error);
  const fastifyError = error as FastifyError;
  if (typeof fastifyError?.statusCode === "number" && fastifyError.statusCode < 500) {
    return {
      status: fastifyError.statusCode,
      body: errorEnvelope({
        message: clientMessage(fastifyError),
        type: "invalid_request_error",
        code: fastifyError.statusCode === 413 ? "request_too_large" : "invalid_request",
      }),
    };
  }
  return {
    status: 500,
    body: errorEnvelope({ message: "Internal error.", type: "server_error", code: "internal_error" }),
  };
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "The request body is too large.";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "Send the request body as application/json.";
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The request body is empty; send a JSON object.";
    default:
      return error.message.startsWith("Unexpected") || error.name === "SyntaxError"
        ? `The request body is not valid JSON: ${error.message}`
        : error.message;
  }
}

/** Upstream 4xx are the client's to see (their request was refused); 5xx and network errors are 502; 429 stays 429. */
function upstreamResponse(error: UpstreamError) {
  if (error.status === 429) {
    return {
      status: 429,
      body: errorEnvelope({
        message: "The provider is rate limiting; retry later.",
        type: "rate_limit_error",
        code: "rate_limited",
      }),
    };
  }
  if (error.status >= 400 && error.status < 500) {
    return {
      status: error.status,
      body: errorEnvelope({
        message: `The provider refused the request: ${upstreamMessage(error.body)}`,
        type: "invalid_request_error",
        code: "upstream_rejected",
      }),
    };
  }
  return {
    status: 502,
    body: errorEnvelope({
      message:
        error.status === 0 ? "The provider could not be reached." : `The provider failed (${error.status}).`,
      type: "upstream_error",
      code: "upstream_error",
    }),
  };
}

function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === "string") return parsed.error.message.slice(0, 500);
  } catch {}
  return body.slice(0, 200) || "no details";
}
