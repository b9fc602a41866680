// @gw/rpc: one handler interface, served over gRPC (distributed mode) or called in-process (standalone).

// Re-exported so services can write `rpcError(status.NOT_FOUND, ...)` without importing grpc-js.
export { status } from "@grpc/grpc-js";
export {
  createGrpcClient,
  DEFAULT_DEADLINE_MS,
  type GrpcClientHandle,
  type GrpcClientOptions,
} from "./client.js";
export {
  CANCELLED_MESSAGE,
  INTERNAL_ERROR_MESSAGE,
  isRetryableRpcError,
  isRpcError,
  RpcError,
  rpcError,
  toClientRpcError,
} from "./errors.js";
export { type InProcessClientOptions, inProcessClient } from "./in-process.js";
export { createGrpcServer, type GrpcServer, type GrpcServerOptions } from "./server.js";
export type {
  AnyServiceDefinition,
  AsyncClient,
  AsyncClientMethod,
  AsyncHandler,
  AsyncHandlers,
  CallContext,
  CallOptions,
  RequestOf,
  ResponseOf,
  RpcLogger,
  UnaryMethodName,
} from "./types.js";
