/**
 * Standalone cold start, as `npm start` runs it after bundling: spawn `node dist/standalone.js`
 * with a fresh data directory (3 times), then once with an existing one, and time spawn -> first
 * `/health` 200. Each run ends with SIGTERM and must exit 0 within 10 s. See bench/README.md.
 *
 *   node --import tsx bench/cold-start.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, spawnNode, waitForHealth } from "@gw/testing";
import { procMemoryMb, repoRoot } from "./lib/processes.js";
import { table } from "./lib/report.js";

const COLD_RUNS = 3;
const STOP_TIMEOUT_MS = 10_000;

interface Run {
  run: string;
  healthMs: number;
  /** The process's own startupMs from its "standalone ready" log line. */
  reportedStartupMs?: number;
  readyLineMs?: number;
  rssMb: number;
  stopMs: number;
  exitCode: number | null;
}

async function startOnce(label: string, dataDir: string): Promise<Run> {
  const port = await freePort();
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  // Embedded mode whatever the shell has set: the URLs would select real servers.
  for (const name of ["DATABASE_URL", "REDIS_URL", "NATS_URL", "SERVICE_SECRET_KEY"]) delete env[name];
  Object.assign(env, { SERVICE_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info" });
  const started = performance.now();
  const child = spawnNode("standalone", [join(repoRoot, "dist", "standalone.js")], env, { cwd: repoRoot });
  let readyLineMs: number | undefined;
  let reportedStartupMs: number | undefined;
  let pending = "";
  child.child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.includes("LLM gateway ready")) readyLineMs ??= performance.now() - started;
      if (!line.startsWith("{")) continue;
      try {
        const entry = JSON.parse(line) as { msg?: string; startupMs?: number };
        if (entry.msg === "standalone ready") reportedStartupMs = entry.startupMs;
      } catch {
        // not a log line
      }
    }
  });
  try {
    await waitForHealth(`http://127.0.0.1:${port}/health`, { timeoutMs: 60_000, children: [child] });
  } catch (error) {
    await child.stop(STOP_TIMEOUT_MS);
    throw error;
  }
  const healthMs = performance.now() - started;
  const rssMb = procMemoryMb(child.child.pid!, "VmRSS");
  // The ready line may trail /health by a moment: give stdout a beat before stopping.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const stopping = performance.now();
  const exitCode = await child.stop(STOP_TIMEOUT_MS);
  const stopMs = performance.now() - stopping;
  if (exitCode !== 0 || stopMs > STOP_TIMEOUT_MS) {
    throw new Error(
      `${label}: exit code ${exitCode} after ${Math.round(stopMs)} ms (want 0 within ${STOP_TIMEOUT_MS} ms)\n${child.output()}`,
    );
  }
  return {
    run: label,
    healthMs,
    ...(reportedStartupMs !== undefined ? { reportedStartupMs } : {}),
    ...(readyLineMs !== undefined ? { readyLineMs } : {}),
    rssMb,
    stopMs,
    exitCode,
  };
}

const bundleStarted = performance.now();
execFileSync(process.execPath, [join(repoRoot, "scripts", "bundle.mjs"), "--quiet"], {
  cwd: repoRoot,
  stdio: "inherit",
});
const bundleMs = performance.now() - bundleStarted;

const dirs: string[] = [];
const runs: Run[] = [];
try {
  for (let i = 1; i <= COLD_RUNS; i++) {
    const dir = mkdtempSync(join(tmpdir(), "gw-cold-start-"));
    dirs.push(dir);
    runs.push(await startOnce(`cold ${i} (fresh data dir)`, dir));
  }
  runs.push(await startOnce("warm (existing data dir)", dirs.at(-1)!));
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

const ms = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(0));
console.log(`Standalone cold start  ${new Date().toISOString()}  node ${process.version}`);
console.log(`node scripts/bundle.mjs --quiet: ${ms(bundleMs)} ms (once, before the runs)`);
console.log(
  "Each run: spawn `node dist/standalone.js` (LOG_LEVEL=info, HOST=127.0.0.1, a free port), poll /health every 10 ms.",
);
console.log("");
console.log(
  table(
    [
      "run",
      "spawn -> /health 200 ms",
      "'LLM gateway ready' seen ms",
      "self-reported startupMs",
      "RSS at ready MB",
      "SIGTERM -> exit ms",
      "exit code",
    ],
    runs.map((r) => [
      r.run,
      ms(r.healthMs),
      ms(r.readyLineMs),
      ms(r.reportedStartupMs),
      r.rssMb.toFixed(1),
      ms(r.stopMs),
      String(r.exitCode),
    ]),
  ),
);
const cold = runs.slice(0, COLD_RUNS).map((r) => r.healthMs);
console.log("");
console.log(
  `cold (fresh data dir): min ${ms(Math.min(...cold))} ms, median ${ms(cold.sort((a, b) => a - b)[Math.floor(cold.length / 2)])} ms; warm: ${ms(runs.at(-1)?.healthMs)} ms`,
);
