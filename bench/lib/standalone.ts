import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStandaloneConfig, seedProject, startStandalone } from "@gw/service-standalone";
import {
  type BenchSubject,
  MODEL_ID,
  SELF,
  selfCpuSeconds,
  UPSTREAM_KEY,
  UPSTREAM_MODEL,
} from "./gateway.js";
import { benchServiceContext } from "./silent-context.js";

/**
 * Standalone mode started in this process exactly as the e2e test does (PGlite, in-process bus and
 * counters, routing/budget as in-process clients), seeded with a `custom` model on the fake upstream.
 * URLs are not passed on, so it is always the embedded flavour even when DATABASE_URL etc. are set.
 */
export async function startStandaloneSubject(
  upstreamBaseUrl: string,
): Promise<BenchSubject & { rssBeforeMb: number; rssReadyMb: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-bench-standalone-"));
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const context = benchServiceContext("standalone");
  const config = readStandaloneConfig({
    SERVICE_DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
  });
  const handle = await startStandalone(config, context);
  const seeded = await seedProject(handle.db.prisma, handle.secretKey, {
    projectSlug: "bench",
    modelId: MODEL_ID,
    provider: "custom",
    baseUrl: upstreamBaseUrl,
    upstreamModel: UPSTREAM_MODEL,
    apiKey: UPSTREAM_KEY,
  });
  const rssReadyMb = process.memoryUsage().rss / 2 ** 20;
  return {
    target: {
      name: "standalone",
      url: `${handle.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${seeded.token}` },
    },
    cpuSeconds: () => ({ [SELF]: selfCpuSeconds() }),
    peakRssMb: () => Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
    rssBeforeMb: rssBefore / 2 ** 20,
    rssReadyMb,
    memoryNote: "RSS of this process (gateway + load generator + fake upstream), sampled every 50 ms",
    async stop() {
      clearInterval(sampler);
      await context.shutdown.run("bench done");
      rmSync(dataDir, { recursive: true, force: true });
      return {};
    },
  };
}
