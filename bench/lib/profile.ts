import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";

/**
 * Optional CPU profiling (`--cpu-prof-dir DIR`): the in-process standalone phase through the
 * inspector, the distributed children through `node --cpu-prof`. The summary groups self time by
 * package (or workspace folder), which is usually enough to see which stage dominates.
 */
export async function startInProcessProfile(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return async (file) => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    writeFileSync(file, JSON.stringify(profile));
  };
}

interface Profile {
  startTime: number;
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

function bucketOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("wasm://")) return "wasm (PGlite / Prisma engine)";
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm) return npm[1]!;
  const workspace = /\/(libs|services|bench)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  if (url.startsWith("node:")) return "node internals";
  return url;
}

/** Now on the profiler's clock (CLOCK_MONOTONIC, microseconds), to cut a profile to a phase. */
export function profilerClockUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Self time by package, percent of non-idle samples inside `window` (µs, profiler clock), biggest first. */
export function summarizeProfile(file: string, top = 12, window?: [number, number]): string[] {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const buckets = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (window && (at < window[0] || at > window[1])) return;
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === "(idle)") return;
    const bucket = bucketOf(frame.url, frame.functionName);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + dt);
    total += dt;
  });
  return [...buckets]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
    .concat(`(${(total / 1000).toFixed(0)} ms of non-idle samples)`);
}

/** The main-thread profile `node --cpu-prof` wrote for `pid` (CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile). */
export function childProfile(dir: string, pid: number): string | undefined {
  const name = readdirSync(dir).find((f) => f.includes(`.${pid}.0.`) && f.endsWith(".cpuprofile"));
  return name ? join(dir, name) : undefined;
}
