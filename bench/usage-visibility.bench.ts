/**
 * Usage visibility benchmark (DESIGN.md section 5: "usage records visible through /api/usage
 * within 1 s (p99) of the response"): how long after a proxy call's answer its usage record can be
 * read through the management API. Standalone, in this process (PGlite, in-process bus).
 *
 *   npm run bench:visibility -- [--calls 200] [--connections 8]
 *
 * Each sampled call sends `x-service-trace: 1`, reads the trace id from `x-service-trace-id`, then
 * polls `GET /api/traces/:id` (which answers 200 once a record with that trace id is stored) every
 * 2 ms; the sample is the time from the end of the proxy answer to the first 200. Two phases:
 * sequential calls on an idle gateway, then the same while `--connections` other connections keep
 * the gateway saturated with calls (their records share the writer's batches).
 */
import { parseArgs } from "node:util";
import { startFakeUpstream } from "@gw/testing";
import { Agent, request } from "undici";
import { CHAT_BODY } from "./lib/http-load.js";
import { startStandaloneSubject } from "./lib/standalone.js";
import { percentiles } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "200" },
    connections: { type: "string", default: "8" },
  },
});
const calls = Math.min(Math.max(1, Number(values.calls) || 200), 10_000);
const connections = Math.min(Math.max(1, Number(values.connections) || 8), 64);
const TARGET_P99_MS = 1000;
const POLL_MS = 2;
const GIVE_UP_MS = 30_000;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const upstream = await startFakeUpstream({ record: false });
const subject = await startStandaloneSubject(upstream.baseUrl);
const base = new URL(subject.target.url).origin;
const agent = new Agent({ connections: connections + 2, keepAliveTimeout: 30_000 });

async function adminToken(): Promise<string> {
  const response = await request(`${base}/api/setup/first-admin`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", password: "bench-password-1" }),
  });
  const body = (await response.body.json()) as { token?: string };
  if (response.statusCode !== 201 || !body.token) throw new Error(`first admin: HTTP ${response.statusCode}`);
  return body.token;
}

async function proxyCall(traced: boolean): Promise<string | undefined> {
  const response = await request(subject.target.url, {
    method: "POST",
    dispatcher: agent,
    headers: {
      ...subject.target.headers,
      "content-type": "application/json",
      ...(traced ? { "x-service-trace": "1" } : {}),
    },
    body: CHAT_BODY,
  });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`proxy call: HTTP ${response.statusCode}`);
  const traceId = response.headers["x-service-trace-id"];
  return typeof traceId === "string" ? traceId : undefined;
}

/** ms from the end of a traced call's answer to its record being readable. */
async function visibilityMs(token: string): Promise<number> {
  const traceId = await proxyCall(true);
  if (!traceId) throw new Error("no x-service-trace-id on a traced call");
  const answered = performance.now();
  for (;;) {
    const response = await request(`${base}/api/traces/${traceId}`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}` },
    });
    await response.body.text();
    if (response.statusCode === 200) return performance.now() - answered;
    if (response.statusCode !== 404) throw new Error(`GET /api/traces: HTTP ${response.statusCode}`);
    if (performance.now() - answered > GIVE_UP_MS) throw new Error(`trace ${traceId} never became visible`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function sample(token: string, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await visibilityMs(token));
  return samples;
}

const rows: Record<string, unknown>[] = [];
const row = (phase: string, samples: number[], background = 0) => {
  const stats = percentiles(samples);
  rows.push({
    phase,
    n: stats.count,
    "background calls": background,
    p50: stats.p50.toFixed(1),
    p90: stats.p90.toFixed(1),
    p99: stats.p99.toFixed(1),
    max: stats.max.toFixed(1),
  });
  return stats;
};

let failure: unknown;
try {
  const token = await adminToken();
  log(`idle: 20 warm-up + ${calls} sequential traced calls`);
  await sample(token, 20);
  const idle = row("idle, sequential", await sample(token, calls));

  log(`loaded: ${calls} traced calls while ${connections} connections saturate the gateway`);
  let running = true;
  let background = 0;
  const load = Array.from({ length: connections }, async () => {
    while (running) {
      await proxyCall(false);
      background++;
    }
  });
  const loaded = row(`under load (${connections} connections)`, await sample(token, calls), 0);
  running = false;
  await Promise.all(load);
  rows.at(-1)!["background calls"] = background;

  console.log(
    "\nUsage record visibility through the management API, standalone (ms from answer to GET /api/traces/:id = 200)",
  );
  console.table(rows);
  for (const [name, stats] of [
    ["idle", idle],
    ["under load", loaded],
  ] as const)
    console.log(
      `${name}: p99 ${stats.p99.toFixed(1)} ms (target <= ${TARGET_P99_MS} ms): ${stats.p99 <= TARGET_P99_MS ? "met" : "MISSED"}`,
    );
  console.log(`polling every ${POLL_MS} ms adds up to about ${POLL_MS} ms plus one GET to each sample`);
} catch (error) {
  failure = error;
} finally {
  await agent.close();
  await subject.stop();
  await upstream.close();
}
if (failure) {
  console.error("bench failed:", failure);
  process.exitCode = 1;
}
setTimeout(() => process.exit(), 3000).unref();
