import { status } from "@grpc/grpc-js";
import { LazyCallContext } from "./call-context.js";
import { DEFAULT_DEADLINE_MS } from "./client.js";
import { CANCELLED_MESSAGE, RpcError, toHandlerRpcError } from "./errors.js";
import {
  type AnyServiceDefinition,
  type AsyncClient,
  type AsyncClientMethod,
  type AsyncHandler,
  type AsyncHandlers,
  methodDisplayName,
  type RpcLogger,
  unaryMethodNames,
} from "./types.js";

/** Options of {@link inProcessClient}. */
export interface InProcessClientOptions {
  /** Receives handler failures, with the same messages and levels as the gRPC server logs them. */
  logger?: RpcLogger;
  /** Deadline of calls that do not pass `deadlineMs`. Default 5000, as for the remote client. */
  defaultDeadlineMs?: number;
}

/** Handlers get no transport metadata in-process; frozen so one object serves every call. */
const EMPTY_METADATA: Record<string, string> = Object.freeze({}) as Record<string, string>;

function makeInProcessMethod(
  handler: AsyncHandler<unknown, unknown>,
  method: string,
  logger: RpcLogger | undefined,
  defaultDeadlineMs: number,
): AsyncClientMethod<unknown, unknown> {
  return (request, callOptions) => {
    const callerSignal = callOptions?.signal;
    if (callerSignal?.aborted) return Promise.reject(new RpcError(status.CANCELLED, CANCELLED_MESSAGE));
    const deadlineMs = callOptions?.deadlineMs ?? defaultDeadlineMs;
    const hasDeadline = Number.isFinite(deadlineMs);
    // Own abort state rather than the caller's signal: the deadline must abort the handler too.
    const callContext = new LazyCallContext(
      hasDeadline ? Date.now() + deadlineMs : undefined,
      EMPTY_METADATA,
    );

    // The single promise layer: it settles on the handler's outcome, the deadline or the caller's
    // abort, whichever comes first, exactly like a remote call that stops waiting for the server.
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        callerSignal?.removeEventListener("abort", onAbort);
        return true;
      };
      // Reason and rejection mirror the remote path: the handler's signal carries the server-side
      // reason, the caller gets the error its gRPC client would report.
      const stop = (code: status, reason: string, callerMessage: string) => {
        if (!finish()) return;
        callContext.abort(new RpcError(code, reason));
        reject(new RpcError(code, callerMessage));
      };
      const onAbort = () => stop(status.CANCELLED, "Cancelled", CANCELLED_MESSAGE);
      callerSignal?.addEventListener("abort", onAbort, { once: true });
      if (hasDeadline) {
        timer = setTimeout(
          stop,
          deadlineMs,
          status.DEADLINE_EXCEEDED,
          "Deadline exceeded",
          "Deadline exceeded",
        );
      }

      let pending: Promise<unknown>;
      try {
        pending = handler(request, callContext);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (response) => {
          if (finish()) resolve(response);
        },
        (error: unknown) => {
          // Mapped (and logged) even when the caller already got its answer, as the server would.
          const rpcErr = toHandlerRpcError(error, method, logger, callContext.aborted);
          if (finish()) reject(rpcErr);
        },
      );
    });
  };
}

/**
 * A client that calls the handlers directly, for standalone mode: no serialization, no network,
 * but the same contract as {@link createGrpcClient} — deadlines (default 5000 ms) and AbortSignal
 * abort the handler's `context.signal` and reject with DEADLINE_EXCEEDED / CANCELLED; RpcErrors keep
 * their code and message; any other error becomes INTERNAL "Internal error" (original logged).
 * Unlike the remote path, requests and responses are passed by reference: handlers must not mutate them.
 *
 * The definition supplies the method list and names (a class instance's methods are not enumerable).
 *
 * @example
 * const routing = inProcessClient(RoutingServiceService, routingHandlers, { logger });
 * const response = await routing.route(request, { deadlineMs: 200 });
 */
export function inProcessClient<S extends AnyServiceDefinition>(
  definition: S,
  handlers: AsyncHandlers<S>,
  options: InProcessClientOptions = {},
): AsyncClient<S> {
  const defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
  const client = {} as Record<string, AsyncClientMethod<unknown, unknown>>;
  for (const name of unaryMethodNames(definition)) {
    const handler = handlers[name] as AsyncHandler<unknown, unknown> | undefined;
    const path = definition[name]!.path;
    if (typeof handler !== "function") throw new Error(`@gw/rpc: no handler for ${path}`);
    client[name] = makeInProcessMethod(
      handler.bind(handlers),
      methodDisplayName(path),
      options.logger,
      defaultDeadlineMs,
    );
  }
  return client as AsyncClient<S>;
}
