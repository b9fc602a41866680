import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, type Database } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";
import { type Child, freePort, waitForHealth } from "@gw/testing";
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
  url: string;
  db: Database;
  secretKey: Buffer;
  processes: Child[];
  stop(): Promise<void>;
}

/**
 * Ingress, routing, budget and usage-writer as separate processes (gRPC over TCP, NATS
 * JetStream, Redis, a fresh PostgreSQL database), started from source. `seed` runs after the
 * migrations and before the services start.
 */
export async function startDistributedGateway(
  seed: (db: Database, secretKey: Buffer) => Promise<void>,
): Promise<DistributedGateway> {
  const env = distributedEnv();
  const dataDir = mkdtempSync(join(tmpdir(), "gw-distributed-"));
  const secretKey = randomBytes(32);
  const database = await createTestDatabaseUrl(env.DATABASE_URL!);
  const db = await createDatabase({ url: database.url });
  await db.migrate();
  await seed(db, secretKey);
  const [routingPort, budgetPort, httpPort] = [await freePort(), await freePort(), await freePort()];
  const shared = {
    DATABASE_URL: database.url,
    REDIS_URL: env.REDIS_URL!,
    NATS_URL: env.NATS_URL!,
    SERVICE_DATA_DIR: dataDir,
    SHUTDOWN_TIMEOUT_MS: "8000",
  };
  const processes = [
    startServiceProcess("routing", {
      ...shared,
      ROUTING_GRPC_LISTEN: `127.0.0.1:${routingPort}`,
      BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
    }),
    startServiceProcess("budget", { ...shared, BUDGET_GRPC_LISTEN: `127.0.0.1:${budgetPort}` }),
    startServiceProcess("usage-writer", shared),
    startServiceProcess("ingress", {
      ...shared,
      SERVICE_SECRET_KEY: secretKey.toString("base64"),
      ROUTING_GRPC_ADDRESS: `127.0.0.1:${routingPort}`,
      BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
      PORT: String(httpPort),
      HOST: "127.0.0.1",
    }),
  ];
  const url = `http://127.0.0.1:${httpPort}`;
  await waitForHealth(`${url}/health`, { timeoutMs: 60_000, children: processes });
  return {
    url,
    db,
    secretKey,
    processes,
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
      await db.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
