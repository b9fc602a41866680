import { z } from "zod";

/** Environment variables that are empty strings count as unset (docker-compose often passes ""). */
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const integer = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

export const LogLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** Every service: logging, telemetry, shutdown. */
export const BaseEnv = z.object({
  LOG_LEVEL: LogLevel.default("info"),
  /** OTLP/HTTP endpoint; traces are exported only when it is set. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  /** Deadline for graceful shutdown after SIGTERM/SIGINT, ms. */
  SHUTDOWN_TIMEOUT_MS: integer(10_000, 100),
});

/**
 * Infrastructure selection: a set URL picks the real server, unset means the embedded adapter
 * (PGlite, in-process bus, in-process counters) with data in SERVICE_DATA_DIR.
 */
export const InfraEnv = z.object({
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  NATS_URL: optionalString,
  /**
   * Prefix of every NATS stream and subject of this deployment, so deployments (or test runs)
   * sharing one NATS server never consume each other's messages. Unset = no prefix.
   */
  BUS_NAMESPACE: optionalString,
  SERVICE_DATA_DIR: z.string().default("./data"),
  /** Redis command timeout: a frozen Redis fails within this, ms. */
  REDIS_COMMAND_TIMEOUT_MS: integer(250, 10),
});

/** gRPC addresses: where routing/budget listen, and where ingress reaches them. */
export const GrpcEnv = z.object({
  ROUTING_GRPC_ADDRESS: z.string().default("127.0.0.1:50051"),
  BUDGET_GRPC_ADDRESS: z.string().default("127.0.0.1:50052"),
  /** Deadline of one hot-path gRPC call, ms. */
  GRPC_DEADLINE_MS: integer(2_000, 10),
});

/** Budget reservations (services/budget, or standalone's in-process budget). */
export const BudgetEnv = z.object({
  /** How long an unsettled reservation holds its worst case before the sweeper gives it back, ms. */
  BUDGET_RESERVATION_TTL_MS: integer(600_000, 1000),
  /** How often each budget replica gives back expired reservations, ms. */
  BUDGET_SWEEP_INTERVAL_MS: integer(1000, 10),
});

/** The public HTTP port. */
export const HttpEnv = z.object({
  PORT: integer(3000, 0),
  HOST: z.string().default("0.0.0.0"),
  /** Global provider timeout; a project's defaultTimeoutMs overrides it. */
  DEFAULT_TIMEOUT_MS: integer(30_000, 1),
  /** Largest accepted request body, bytes. */
  BODY_LIMIT_BYTES: integer(10 * 1024 * 1024, 1024),
});

/** Secrets: AES-256-GCM key for upstream keys, 32 bytes base64 (standalone generates one). */
export const SecretEnv = z.object({
  SERVICE_SECRET_KEY: optionalString,
});
