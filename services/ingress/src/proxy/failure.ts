import type { UsageFacts } from "@gw/accounting";
import { GatewayError, UpstreamError } from "@gw/errors";
import { clientStatusOf } from "../errors.js";

/** Fill outcome/status/message of the usage record from the error that ends the call. */
export function describeFailure(error: unknown, facts: UsageFacts): void {
  const aborted = (error as Error)?.name === "AbortError";
  // 499: the client closed the connection (nginx's convention); nothing was answered.
  facts.status = aborted ? 499 : clientStatusOf(error);
  if (error instanceof GatewayError && error.code === "timeout") facts.outcome = "timeout";
  else if (!(error instanceof GatewayError && error.code === "budget_exceeded")) facts.outcome = "error";
  else facts.outcome = "budget_exceeded";
  facts.errorMessage = (error as Error)?.message ?? "unknown error";
}

/**
 * Failures another candidate may not share, seen before anything reached the client: network
 * errors, timeouts, 429, server errors, rejected credentials, a model the provider does not know,
 * an answer that could not be read. A 400-class refusal of the request itself is not retried
 * elsewhere: the next provider would refuse it too.
 */
export function worthAnotherCandidate(error: unknown): boolean {
  if (error instanceof UpstreamError)
    return error.isRetryable || error.status === 401 || error.status === 403 || error.status === 404;
  if (error instanceof GatewayError) return error.code === "timeout" || error.code === "upstream_error";
  return false;
}
