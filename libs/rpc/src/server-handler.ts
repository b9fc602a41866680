import type { Deadline, handleUnaryCall, Metadata, ServerUnaryCall } from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import {
  type Attributes,
  context as otelContext,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { LazyCallContext } from "./call-context.js";
import { RpcError, toHandlerRpcError } from "./errors.js";
import { type AsyncHandler, type CallContext, methodDisplayName, type RpcLogger } from "./types.js";

/** Tracer of this lib; a proxy until (and after) the telemetry lib registers a provider. */
const tracer = trace.getTracer("@gw/rpc");

/**
 * On the wire a client's deadline and a client's cancel look the same (RST_STREAM CANCEL), and the
 * client's reset usually arrives just before this server's own timer (which started when the headers
 * arrived), so a cancel this close to the deadline is reported to the handler as DEADLINE_EXCEEDED.
 */
const DEADLINE_CANCEL_SLACK_MS = 50;

/**
 * Codes that mean the server failed rather than the caller asking for something that does not exist
 * (OTel gRPC semantic conventions): only these mark the server span as an error.
 */
const SERVER_FAULT_CODES: ReadonlySet<status> = new Set([
  status.UNKNOWN,
  status.DEADLINE_EXCEEDED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

/**
 * Flattens grpc metadata into the CallContext shape. The same object is the carrier for trace
 * context extraction (the default getter reads plain objects), so it is built once per call.
 */
export function flattenMetadata(metadata: Metadata): Record<string, string> {
  const map = metadata.getMap();
  const flat: Record<string, string> = {};
  for (const key in map) {
    const value = map[key]!;
    flat[key] = typeof value === "string" ? value : value.toString("base64");
  }
  return flat;
}

/** grpc-js reports "no deadline" as Infinity; the CallContext reports it as undefined. */
function deadlineToEpochMs(deadline: Deadline): number | undefined {
  const epochMs = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(epochMs) ? epochMs : undefined;
}

/** Turns a synchronous throw into a rejection so both reach the same error path. */
function invokeHandler<Req, Res>(
  handler: AsyncHandler<Req, Res>,
  request: Req,
  ctx: CallContext,
): Promise<Res> {
  try {
    return handler(request, ctx);
  } catch (error) {
    return Promise.reject(error);
  }
}

function endSpanWithError(span: Span, rpcErr: RpcError, original: unknown, unexpected: boolean): void {
  span.setAttribute("rpc.grpc.status_code", rpcErr.code);
  if (unexpected) span.recordException(original instanceof Error ? original : String(original));
  if (SERVER_FAULT_CODES.has(rpcErr.code)) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: rpcErr.codeName });
  }
  span.end();
}

/**
 * Adapts one AsyncHandler to a grpc-js unary handler: builds the CallContext, continues the caller's
 * trace (W3C traceparent/tracestate in metadata) under a SERVER span named "pkg.Service/Method",
 * and maps failures with the same rules the in-process client uses.
 */
export function wrapUnaryHandler<Req, Res>(
  path: string,
  handler: AsyncHandler<Req, Res>,
  logger: RpcLogger | undefined,
): handleUnaryCall<Req, Res> {
  const method = methodDisplayName(path);
  const slash = method.lastIndexOf("/");
  // Computed once per method; the SDK copies span attributes, so sharing the object is safe.
  const spanAttributes: Attributes = {
    "rpc.system": "grpc",
    "rpc.service": method.slice(0, slash),
    "rpc.method": method.slice(slash + 1),
  };

  return (call: ServerUnaryCall<Req, Res>, callback) => {
    const deadline = deadlineToEpochMs(call.getDeadline());
    const callContext = new LazyCallContext(deadline, flattenMetadata(call.metadata));
    // grpc-js emits "cancelled" when the client cancels, the deadline timer fires or the server is
    // force-shut down. The reason is an RpcError, so `signal.throwIfAborted()` in a handler surfaces
    // the right code.
    call.once("cancelled", () => {
      const expired = deadline !== undefined && Date.now() >= deadline - DEADLINE_CANCEL_SLACK_MS;
      callContext.abort(
        expired
          ? new RpcError(status.DEADLINE_EXCEEDED, "Deadline exceeded")
          : new RpcError(status.CANCELLED, "Cancelled"),
      );
    });

    // The flattened metadata doubles as the carrier: the default getter reads plain objects.
    const parentContext = propagation.extract(ROOT_CONTEXT, callContext.metadata);
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: spanAttributes },
      parentContext,
    );
    const pending = otelContext.with(trace.setSpan(parentContext, span), () =>
      invokeHandler(handler, call.request, callContext),
    );

    pending.then(
      (response) => {
        span.setAttribute("rpc.grpc.status_code", status.OK);
        span.end();
        callback(null, response);
      },
      (error: unknown) => {
        const cancelled = callContext.aborted;
        const rpcErr = toHandlerRpcError(error, method, logger, cancelled);
        endSpanWithError(span, rpcErr, error, !(error instanceof RpcError) && !cancelled);
        callback({ code: rpcErr.code, details: rpcErr.details });
      },
    );
  };
}
