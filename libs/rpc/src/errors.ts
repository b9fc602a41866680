import { type ServiceError, status } from "@grpc/grpc-js";
import type { RpcLogger } from "./types.js";

/** Message sent to clients for any handler failure that is not an RpcError; details stay in the server log. */
export const INTERNAL_ERROR_MESSAGE = "Internal error";

/** Message of the RpcError a caller gets when it aborts a call (same text grpc-js uses on the remote path). */
export const CANCELLED_MESSAGE = "Cancelled on client";

/**
 * An error with a gRPC status code. Handlers throw it to choose the code and message the caller
 * sees; clients (remote and in-process) reject with it for every failed call.
 */
export class RpcError extends Error {
  override readonly name = "RpcError";
  /** gRPC status code (`status.NOT_FOUND`, ...). */
  readonly code: status;
  /** Human-readable message carried on the wire; equal to `message`. */
  readonly details: string;

  constructor(code: status, details: string, options?: ErrorOptions) {
    super(details, options);
    this.code = code;
    this.details = details;
  }

  /** Symbolic name of the code, e.g. "NOT_FOUND"; handy in logs. */
  get codeName(): string {
    return status[this.code] ?? `CODE_${this.code}`;
  }
}

/** Shorthand for `new RpcError(code, message)`: `throw rpcError(status.NOT_FOUND, "no route")`. */
export function rpcError(code: status, message: string, options?: ErrorOptions): RpcError {
  return new RpcError(code, message, options);
}

/** Type guard; with `code`, also checks the status code. */
export function isRpcError(error: unknown, code?: status): error is RpcError {
  return error instanceof RpcError && (code === undefined || error.code === code);
}

/**
 * True for DEADLINE_EXCEEDED and UNAVAILABLE: the failures a caller may retry or fail over on.
 * Whether a retry is safe still depends on the method being idempotent (a budget reservation may
 * have been applied even though its response was lost).
 */
export function isRetryableRpcError(error: unknown): error is RpcError {
  return (
    error instanceof RpcError &&
    (error.code === status.DEADLINE_EXCEEDED || error.code === status.UNAVAILABLE)
  );
}

// Duck-typed rather than instanceof: ServiceError is an interface, grpc-js builds it from a plain Error.
function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ServiceError>).code === "number" &&
    typeof (error as Partial<ServiceError>).details === "string"
  );
}

/**
 * Client side: turns what grpc-js reports into an RpcError with the same code and details, so
 * callers only ever handle RpcError. Local failures (e.g. a request that fails to serialize) become
 * INTERNAL with their own message, since they never left the process.
 */
export function toClientRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (isServiceError(error)) return new RpcError(error.code, error.details, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new RpcError(status.INTERNAL, message, { cause: error });
}

/**
 * Server side (shared by the gRPC server and the in-process client, so both modes surface the same
 * thing): what the caller should see when a handler fails.
 * - RpcError: its code and message (logged at debug: these are expected outcomes such as NOT_FOUND).
 * - anything else after the call was cancelled: CANCELLED (the caller has gone; not worth an error log).
 * - anything else: INTERNAL with a generic message; the original, stack included, goes to the log only.
 * Always returns a fresh RpcError without `cause`, so nothing server-internal reaches the caller.
 */
export function toHandlerRpcError(
  error: unknown,
  method: string,
  logger: RpcLogger | undefined,
  cancelled: boolean,
): RpcError {
  if (error instanceof RpcError) {
    logger?.debug({ method, code: error.codeName, details: error.details }, "rpc handler returned an error");
    return new RpcError(error.code, error.details);
  }
  if (cancelled) {
    logger?.debug({ method, err: error }, "rpc handler failed after the call was cancelled");
    return new RpcError(status.CANCELLED, "Cancelled");
  }
  logger?.error({ method, err: error }, "rpc handler failed");
  return new RpcError(status.INTERNAL, INTERNAL_ERROR_MESSAGE);
}
