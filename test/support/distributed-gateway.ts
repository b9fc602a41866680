import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, type Database } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";
import { type Child, freePort, waitForHealth } from "@gw/testing";
import { Redis } from "ioredis";
import { deleteBusNamespace, testBusNamespace } from "./bus-namespace.js";
import { startServiceProcess } from "./processes.js";

/** The real-server URLs distributed suites need; `missing` names the unset ones. */
export function distributedEnv() {
  const { DATABASE_URL, REDIS_URL, NATS_URL } = process.env;
  const missing = Object.entries({ DATABASE_URL, REDIS_URL, NATS_URL })
    .filter(([, value]) => !value)
    .map(([name]) => name);
  return { DATABASE_URL, REDIS_URL, NATS_URL, missing };
}

export interface DistributedGateway {
  /** The first ingress. */
  url: string;
  /** Every ingress, in replica order. */
  urls: string[];
  /** The suite's own NATS namespace: a test's own bus must use it to see the services' messages. */
  busNamespace: string;
  /** The metrics-exporter replicas' base URLs (GET /metrics, /health); empty unless asked for. */
  metricsUrls: string[];
  db: Database;
  secretKey: Buffer;
  processes: Child[];
  stop(): Promise<void>;
}

export interface DistributedGatewayOptions {
  replicas?: number;
  /**
   * metrics-exporter processes to start (default 0: the other suites do not need them). They share
   * the suite's NATS namespace (one durable) and Redis, with the namespace as metric key prefix.
   */
  metricsExporters?: number;
  /** Extra environment of the metrics exporters (METRICS_PUSH_INTERVAL_MS, SERVICE_DATADOG_API_URL...). */
  metricsExporterEnv?: Record<string, string>;
}

/**
 * Ingress, routing, budget and usage-writer (and, when asked, metrics-exporter) as separate
 * processes (gRPC over TCP, NATS JetStream, Redis, a fresh PostgreSQL database), started from
 * source. `seed` runs after the migrations and before the services start. With `replicas: n`, n ingress, n routing and n budget
 * processes run, ingress i calling routing i and budget i, all on the one Redis and database.
 */
export async function startDistributedGateway(
  seed: (db: Database, secretKey: Buffer) => Promise<void>,
  options: DistributedGatewayOptions = {},
): Promise<DistributedGateway> {
  const env = distributedEnv();
  const replicas = Math.max(1, options.replicas ?? 1);
  const dataDir = mkdtempSync(join(tmpdir(), "gw-distributed-"));
  const busNamespace = testBusNamespace();
  const secretKey = randomBytes(32);
  const database = await createTestDatabaseUrl(env.DATABASE_URL!);
  const db = await createDatabase({ url: database.url });
  await db.migrate();
  await seed(db, secretKey);
  const shared = {
    DATABASE_URL: database.url,
    REDIS_URL: env.REDIS_URL!,
    NATS_URL: env.NATS_URL!,
    SERVICE_DATA_DIR: dataDir,
    SHUTDOWN_TIMEOUT_MS: "8000",
    BUS_NAMESPACE: busNamespace,
  };
  const adminPort = await freePort();
  const processes = [startServiceProcess("usage-writer", shared), startServiceProcess("audit", shared)];
  // One admin-api (it calls the first replica's budget service for spend-group usage).
  const adminApiUrl = `http://127.0.0.1:${adminPort}`;
  const urls: string[] = [];
  for (let replica = 0; replica < replicas; replica++) {
    const [routingPort, budgetPort, httpPort] = [await freePort(), await freePort(), await freePort()];
    const own = { ...shared, SERVICE_DATA_DIR: join(dataDir, `replica-${replica}`) };
    processes.push(
      startServiceProcess("routing", {
        ...own,
        // The llm policy's routing model needs the upstream keys' secret.
        SERVICE_SECRET_KEY: secretKey.toString("base64"),
        ROUTING_GRPC_LISTEN: `127.0.0.1:${routingPort}`,
        BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
      }),
      startServiceProcess("budget", { ...own, BUDGET_GRPC_LISTEN: `127.0.0.1:${budgetPort}` }),
      startServiceProcess("ingress", {
        ...own,
        SERVICE_SECRET_KEY: secretKey.toString("base64"),
        ROUTING_GRPC_ADDRESS: `127.0.0.1:${routingPort}`,
        BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
        PORT: String(httpPort),
        HOST: "127.0.0.1",
        ADMIN_API_URL: adminApiUrl,
      }),
    );
    if (replica === 0)
      processes.push(
        startServiceProcess("admin-api", {
          ...own,
          SERVICE_SECRET_KEY: secretKey.toString("base64"),
          BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
          ADMIN_API_PORT: String(adminPort),
          ADMIN_API_HOST: "127.0.0.1",
        }),
      );
    urls.push(`http://127.0.0.1:${httpPort}`);
  }
  const metricsUrls: string[] = [];
  for (let exporter = 0; exporter < (options.metricsExporters ?? 0); exporter++) {
    const port = await freePort();
    processes.push(
      startServiceProcess("metrics-exporter", {
        ...shared,
        SERVICE_DATA_DIR: join(dataDir, `metrics-exporter-${exporter}`),
        SERVICE_SECRET_KEY: secretKey.toString("base64"),
        METRICS_EXPORTER_PORT: String(port),
        METRICS_EXPORTER_HOST: "127.0.0.1",
        ...options.metricsExporterEnv,
      }),
    );
    metricsUrls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(
    [...urls, ...metricsUrls].map((url) =>
      waitForHealth(`${url}/health`, { timeoutMs: 60_000, children: processes }),
    ),
  );
  // Ingress is live before routing and budget listen (it refuses calls with 503 until they do):
  // wait until it is ready, so a suite's first request meets a whole gateway.
  await Promise.all(
    urls.map((url) => waitForHealth(`${url}/health/ready`, { timeoutMs: 60_000, children: processes })),
  );
  await waitForHealth(`${adminApiUrl}/health`, { timeoutMs: 60_000, children: processes });
  return {
    url: urls[0]!,
    urls,
    busNamespace,
    metricsUrls,
    db,
    secretKey,
    processes,
    async stop() {
      // GW_DUMP_SERVICE_LOGS=1: each service's last output (warn and above by default), to debug a run.
      if (process.env.GW_DUMP_SERVICE_LOGS)
        for (const p of processes) console.error(`--- ${p.name}\n${p.output().slice(-4000)}`);
      await Promise.all(processes.map((p) => p.stop()));
      // The exporters' metric state lives under the namespace in the shared Redis.
      if (metricsUrls.length > 0) await deleteRedisKeys(env.REDIS_URL!, `${busNamespace}:metrics:*`);
      await db.close();
      await database.drop();
      await deleteBusNamespace(env.NATS_URL!, busNamespace);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function deleteRedisKeys(redisUrl: string, pattern: string): Promise<void> {
  const admin = new Redis(redisUrl);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await admin.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await admin.quit();
  }
}
