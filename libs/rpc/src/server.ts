import {
  type ChannelOptions,
  Server,
  ServerCredentials,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { wrapUnaryHandler } from "./server-handler.js";
import { type AnyServiceDefinition, type AsyncHandlers, type RpcLogger, unaryMethodNames } from "./types.js";
import { removeStaleUnixSocket, unixSocketPath } from "./unix-socket.js";

/** Options of {@link createGrpcServer}. */
export interface GrpcServerOptions {
  logger?: RpcLogger;
  /** Largest accepted request, bytes (grpc-js default: 4 MiB). */
  maxReceiveMessageLength?: number;
  /** Raw grpc-js server options, applied over this lib's defaults. */
  serverOptions?: ChannelOptions;
}

/** A gRPC server that serves AsyncHandlers. */
export interface GrpcServer {
  /** Registers a service; throws at startup if a unary method has no handler. Chainable. */
  add<S extends AnyServiceDefinition>(definition: S, handlers: AsyncHandlers<S>): GrpcServer;
  /**
   * Binds "host:port" (port 0 picks a free one) or "unix:/path" and starts serving.
   * Resolves with the bound port (0 for unix sockets).
   */
  listen(address: string): Promise<{ port: number }>;
  /** Graceful stop: waits for in-flight calls, force-closes whatever is left after `timeoutMs`. */
  shutdown(timeoutMs: number): Promise<void>;
  /** The underlying grpc-js server, for extras such as a health service. */
  readonly grpcServer: Server;
}

/**
 * Server keepalive: ping idle connections so a peer that vanished without a FIN (node crash, NAT
 * drop) is detected within ~80 s instead of the 2 h default.
 */
const DEFAULT_SERVER_OPTIONS: ChannelOptions = {
  "grpc.keepalive_time_ms": 60_000,
  "grpc.keepalive_timeout_ms": 20_000,
};

/**
 * Creates a gRPC server for AsyncHandlers (see {@link GrpcServer}).
 *
 * @example
 * const server = createGrpcServer({ logger }).add(RoutingServiceService, routingHandlers);
 * const { port } = await server.listen("0.0.0.0:50051");
 */
export function createGrpcServer(options: GrpcServerOptions = {}): GrpcServer {
  const { logger } = options;
  const serverOptions: ChannelOptions = { ...DEFAULT_SERVER_OPTIONS, ...options.serverOptions };
  if (options.maxReceiveMessageLength !== undefined) {
    serverOptions["grpc.max_receive_message_length"] = options.maxReceiveMessageLength;
  }
  const grpcServer = new Server(serverOptions);

  const server: GrpcServer = {
    grpcServer,

    add(definition, handlers) {
      const implementation: UntypedServiceImplementation = {};
      for (const name of unaryMethodNames(definition)) {
        const handler = handlers[name];
        const path = definition[name]!.path;
        if (typeof handler !== "function") throw new Error(`@gw/rpc: no handler for ${path}`);
        // Bound so class-based handler objects keep their `this`.
        implementation[name] = wrapUnaryHandler(path, handler.bind(handlers), logger);
      }
      grpcServer.addService(definition, implementation);
      return server;
    },

    async listen(address) {
      const socketPath = unixSocketPath(address);
      if (socketPath !== undefined && (await removeStaleUnixSocket(socketPath))) {
        logger?.warn({ path: socketPath }, "removed stale unix socket");
      }
      const port = await new Promise<number>((resolve, reject) => {
        grpcServer.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) =>
          error ? reject(error) : resolve(boundPort),
        );
      });
      logger?.info({ address, port }, "rpc server listening");
      return { port: socketPath === undefined ? port : 0 };
    },

    shutdown(timeoutMs) {
      return new Promise<void>((resolve) => {
        const forceTimer = setTimeout(() => {
          logger?.warn({ timeoutMs }, "rpc server graceful shutdown timed out; forcing");
          // Closes the remaining streams: their handlers' signals abort via the "cancelled" event.
          grpcServer.forceShutdown();
          resolve();
        }, timeoutMs);
        grpcServer.tryShutdown((error) => {
          clearTimeout(forceTimer);
          if (error) logger?.warn({ err: error }, "rpc server shutdown reported an error");
          resolve();
        });
      });
    },
  };
  return server;
}
