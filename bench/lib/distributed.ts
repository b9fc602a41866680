import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";
import { seedProject } from "@gw/service-standalone";
import { type Child, freePort, spawnNode, waitForHealth } from "@gw/testing";
import {
  type BenchSubject,
  MODEL_ID,
  SELF,
  selfCpuSeconds,
  UPSTREAM_KEY,
  UPSTREAM_MODEL,
} from "./gateway.js";
import { procCpuSeconds, procMemoryMb, repoRoot } from "./processes.js";

export interface DistributedUrls {
  DATABASE_URL: string;
  REDIS_URL: string;
  NATS_URL: string;
}

/** The URLs distributed mode needs, or the names of the missing ones. */
export function distributedUrls(
  env: NodeJS.ProcessEnv = process.env,
): DistributedUrls | { missing: string[] } {
  const { DATABASE_URL, REDIS_URL, NATS_URL } = env;
  const missing = Object.entries({ DATABASE_URL, REDIS_URL, NATS_URL })
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0) return { missing };
  return { DATABASE_URL: DATABASE_URL!, REDIS_URL: REDIS_URL!, NATS_URL: NATS_URL! };
}

/**
 * Distributed mode: routing, budget, usage-writer and ingress as separate processes from source
 * (gRPC over loopback TCP, Redis counters, NATS JetStream, PostgreSQL), on a throwaway database.
 * With `pin`, ingress runs on core 1 and the others may use both cores (this process sits on core 0).
 */
export async function startDistributedSubject(
  urls: DistributedUrls,
  upstreamBaseUrl: string,
  pin: boolean,
  cpuProfDir?: string,
): Promise<
  BenchSubject & {
    pinning: string;
    pids: Record<string, number>;
    ingressRssReadyMb: number;
  }
> {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-bench-distributed-"));
  const secretKey = randomBytes(32);
  const database = await createTestDatabaseUrl(urls.DATABASE_URL);
  const children: Child[] = [];
  const cleanup = async () => {
    const codes: Record<string, number | null> = {};
    for (const child of children.toReversed()) codes[child.name] = await child.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    return codes;
  };
  try {
    const db = await createDatabase({ url: database.url });
    await db.migrate();
    const seeded = await seedProject(db.prisma, secretKey, {
      projectSlug: "bench",
      modelId: MODEL_ID,
      provider: "custom",
      baseUrl: upstreamBaseUrl,
      upstreamModel: UPSTREAM_MODEL,
      apiKey: UPSTREAM_KEY,
    });
    await db.close();
    const [routingPort, budgetPort, httpPort] = [await freePort(), await freePort(), await freePort()];
    const shared: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      REDIS_URL: urls.REDIS_URL,
      NATS_URL: urls.NATS_URL,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_SECRET_KEY: secretKey.toString("base64"),
      LOG_LEVEL: "warn",
      SHUTDOWN_TIMEOUT_MS: "8000",
    };
    const profile = cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : [];
    const [ingressCpus, otherCpus] = pin ? ["1", "0-1"] : [undefined, undefined];
    const service = (name: string, env: Record<string, string>, cpus?: string) =>
      spawnNode(
        name,
        [...profile, "--import", "tsx", join("services", name, "src", "main.ts")],
        { ...shared, ...env },
        { cwd: repoRoot, cpuList: cpus },
      );
    children.push(
      service(
        "routing",
        { ROUTING_GRPC_LISTEN: `127.0.0.1:${routingPort}`, BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}` },
        otherCpus,
      ),
      service("budget", { BUDGET_GRPC_LISTEN: `127.0.0.1:${budgetPort}` }, otherCpus),
      service("usage-writer", {}, otherCpus),
      service(
        "ingress",
        {
          ROUTING_GRPC_ADDRESS: `127.0.0.1:${routingPort}`,
          BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
          PORT: String(httpPort),
          HOST: "127.0.0.1",
        },
        ingressCpus,
      ),
    );
    const base = `http://127.0.0.1:${httpPort}`;
    await waitForHealth(`${base}/health`, { timeoutMs: 90_000, children });
    const ingressPid = children.find((c) => c.name === "ingress")!.child.pid!;
    const ingressRssReadyMb = procMemoryMb(ingressPid, "VmRSS");
    return {
      ingressRssReadyMb,
      target: {
        name: "distributed",
        url: `${base}/v1/chat/completions`,
        headers: { authorization: `Bearer ${seeded.token}` },
      },
      cpuSeconds: () => ({
        [SELF]: selfCpuSeconds(),
        ...Object.fromEntries(children.map((c) => [c.name, procCpuSeconds(c.child.pid!)])),
      }),
      peakRssMb: () => procMemoryMb(ingressPid, "VmHWM"),
      pids: Object.fromEntries(children.map((c) => [c.name, c.child.pid!])),
      memoryNote: "VmHWM (peak RSS) of the ingress process, /proc/<pid>/status",
      pinning: pin
        ? "ingress -> core 1 (taskset -c 1); routing, budget, usage-writer -> cores 0-1; PostgreSQL, Redis, NATS unpinned"
        : "none",
      stop: cleanup,
    };
  } catch (error) {
    await cleanup().catch(() => {});
    throw error;
  }
}
