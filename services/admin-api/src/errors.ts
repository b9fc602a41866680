import { errorEnvelope } from "@gw/errors";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { ZodError } from "zod";

/**
 * Management API errors: the envelope of DESIGN.md (`{ error: { message, type, code } }`, the same
 * as the proxy's). Client mistakes are 4xx with the field at fault named; anything unexpected is a
 * 500 whose details go to the log, never to the client.
 */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: string = typeFor(status),
  ) {
    super(message);
  }
}

function typeFor(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 409) return "conflict_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

export const AdminErrors = {
  unauthenticated: (message = "Sign in: a valid access token is required.") =>
    new AdminError(401, "unauthenticated", message),
  forbidden: (permission: string) =>
    new AdminError(403, "forbidden", `This needs the ${permission} permission.`),
  notFound: (what: string) => new AdminError(404, "not_found", `${what} was not found.`),
  conflict: (message: string) => new AdminError(409, "conflict", message),
  invalid: (message: string, code = "invalid_request") => new AdminError(400, code, message),
};

/** The first problem of a failed schema check, with its field path: `users[0].email: Invalid email`. */
export function fromZodError(error: ZodError): AdminError {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  const message = issue ? `${path ? `${path}: ` : ""}${issue.message}` : "invalid body";
  return AdminErrors.invalid(message);
}

export function renderAdminError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (reply.sent) return;
  let known: AdminError;
  if (error instanceof AdminError) known = error;
  else {
    const fastifyError = error as FastifyError;
    if (typeof fastifyError?.statusCode === "number" && fastifyError.statusCode < 500) {
      const message =
        fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
          ? "Send JSON (content-type: application/json)."
          : fastifyError.statusCode === 413
            ? "The body is too large."
            : "The body is not valid JSON.";
      known = new AdminError(fastifyError.statusCode, "invalid_request", message);
    } else {
      request.log.error({ err: error }, "management request failed");
      known = new AdminError(500, "internal_error", "Something went wrong on our side; it is logged.");
    }
  }
  if (known.status >= 500 && error instanceof AdminError)
    request.log.error({ err: error }, "management request failed");
  void reply
    .code(known.status)
    .header("content-type", "application/json")
    .send(errorEnvelope({ message: known.message, type: known.type, code: known.code }));
}
