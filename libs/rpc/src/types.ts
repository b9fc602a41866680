import type { ServiceDefinition } from "@grpc/grpc-js";

/**
 * Minimal pino-compatible logger. A pino `Logger` satisfies it, and so does a test stub; the lib never
 * depends on pino itself.
 */
export interface RpcLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/**
 * Any grpc-js service definition, as emitted by ts-proto with `outputServices=grpc-js`
 * (e.g. `RoutingServiceService`). Keys are the lower-camel method names.
 */
export type AnyServiceDefinition = ServiceDefinition;

/**
 * Per-call information handed to every handler, identical in distributed and standalone mode.
 * Pass the object itself along: `signal` is an accessor (the AbortSignal is created on first read,
 * to keep calls cheap), so a spread copy `{ ...context }` has no `signal`.
 */
export interface CallContext {
  /** Absolute deadline, epoch milliseconds; undefined when the caller set none. */
  deadline?: number;
  /** Aborted when the caller cancels, the deadline passes, or the server shuts down. */
  signal: AbortSignal;
  /** Request metadata flattened to one string per key (first value wins; `-bin` values base64). */
  metadata: Record<string, string>;
}

/** Per-call options of an {@link AsyncClient} method. */
export interface CallOptions {
  /** Relative deadline in milliseconds; overrides the client's default. */
  deadlineMs?: number;
  /** Aborting cancels the call; the promise rejects with RpcError CANCELLED. */
  signal?: AbortSignal;
}

/** Names of the methods of `S` that are neither client- nor server-streaming. */
export type UnaryMethodName<S extends AnyServiceDefinition> = {
  [K in keyof S]: S[K] extends { requestStream: false; responseStream: false } ? K : never;
}[keyof S] &
  string;

/** Request message type of one method definition, read from its deserializer. */
export type RequestOf<M> = M extends { requestDeserialize: (bytes: Buffer) => infer Req } ? Req : never;

/** Response message type of one method definition, read from its deserializer. */
export type ResponseOf<M> = M extends { responseDeserialize: (bytes: Buffer) => infer Res } ? Res : never;

/** One async handler: what a service implementation provides per unary method. */
export type AsyncHandler<Req, Res> = (request: Req, context: CallContext) => Promise<Res>;

/** One client method: what callers use, whether the service is remote or in-process. */
export type AsyncClientMethod<Req, Res> = (request: Req, options?: CallOptions) => Promise<Res>;

/**
 * Service implementation derived from a service definition: one async function per unary method.
 * Streaming methods are excluded (this lib is unary only).
 */
export type AsyncHandlers<S extends AnyServiceDefinition> = {
  [K in UnaryMethodName<S>]: AsyncHandler<RequestOf<S[K]>, ResponseOf<S[K]>>;
};

/** Promise-based client derived from a service definition: one function per unary method. */
export type AsyncClient<S extends AnyServiceDefinition> = {
  [K in UnaryMethodName<S>]: AsyncClientMethod<RequestOf<S[K]>, ResponseOf<S[K]>>;
};

/** The unary method keys of a definition, in declaration order (runtime twin of UnaryMethodName). */
export function unaryMethodNames<S extends AnyServiceDefinition>(definition: S): UnaryMethodName<S>[] {
  return Object.keys(definition).filter((name) => {
    const method = definition[name]!;
    return !method.requestStream && !method.responseStream;
  }) as UnaryMethodName<S>[];
}

/** "/pkg.Service/Method" -> "pkg.Service/Method": the OTel span name and the name used in logs. */
export function methodDisplayName(path: string): string {
  return path.startsWith("/") ? path.slice(1) : path;
}
