/**
 * Spine benchmark: the same chat completion sent directly to the fake upstream (the floor), through
 * the gateway in standalone mode (in this process) and in distributed mode (separate processes,
 * when DATABASE_URL, REDIS_URL and NATS_URL are set). See bench/README.md.
 *
 *   npm run bench -- [--calls 500] [--seconds 5] [--no-pin] [--cpu-prof-dir DIR]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "@gw/testing";
import { parseArgs } from "./lib/args.js";
import { distributedUrls, startDistributedSubject } from "./lib/distributed.js";
import { type BenchSubject, SELF, selfCpuSeconds, UPSTREAM_KEY } from "./lib/gateway.js";
import { fixedRate, saturate, sequentialLatency, streamingTtfb } from "./lib/http-load.js";
import { machineCpuTicks, pinSelf, repoRoot, tasksetAvailable } from "./lib/processes.js";
import { childProfile, profilerClockUs, startInProcessProfile, summarizeProfile } from "./lib/profile.js";
import { type Derived, derive, renderReport, type SubjectResult, TARGETS } from "./lib/report.js";
import { startStandaloneSubject } from "./lib/standalone.js";
import { percentiles } from "./lib/stats.js";

const TTFB_WARMUP = 20;
const args = parseArgs();
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const pinned = args.pin && tasksetAvailable();
if (pinned) pinSelf("0");
const pinning = pinned
  ? "this process (load generator + fake upstream + standalone gateway) -> core 0 (taskset -a -p -c 0)"
  : args.pin
    ? "none (taskset not found or fewer than 2 cores)"
    : "none (--no-pin)";

async function measure(name: SubjectResult["name"], subject: BenchSubject): Promise<SubjectResult> {
  log(`${name}: ${args.warmup} warm-up + ${args.calls} sequential calls`);
  const latency = percentiles(await sequentialLatency(subject.target, args.warmup, args.calls));
  log(`${name}: ${TTFB_WARMUP} warm-up + ${args.ttfbCalls} streamed calls`);
  const stream = await streamingTtfb(subject.target, TTFB_WARMUP, args.ttfbCalls);
  log(`${name}: fixed rate, ${args.rate} req/s for ${args.rateSeconds} s (open loop)`);
  const rated = await fixedRate(subject.target, args.rate, args.rateSeconds);
  if (rated.failed > 0)
    throw new Error(`${name}: ${rated.failed} failures at a fixed rate: ${rated.firstFailure}`);
  log(`${name}: saturation, ${args.connections} connections for ${args.seconds} s`);
  const before = subject.cpuSeconds();
  const machineBefore = machineCpuTicks();
  const startedUs = profilerClockUs();
  const saturation = await saturate(subject.target, args.connections, args.seconds);
  const saturationWindowUs: [number, number] = [startedUs, profilerClockUs()];
  const after = subject.cpuSeconds();
  const machineAfter = machineCpuTicks();
  const machineBusyCores =
    ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * cpus().length;
  const saturationCpu = Object.fromEntries(
    Object.entries(after).map(([process, seconds]) => [process, seconds - (before[process] ?? 0)]),
  );
  return {
    name,
    latency,
    ttfb: percentiles(stream.ttfb),
    streamTotal: percentiles(stream.total),
    fixedRate: { rate: args.rate, ...percentiles(rated.samples) },
    saturation,
    saturationCpu,
    peakRssMb: subject.peakRssMb(),
    memoryNote: subject.memoryNote,
    saturationWindowUs,
    machineBusyCores,
  };
}

if (args.cpuProfDir) mkdirSync(args.cpuProfDir, { recursive: true });
const loadAtStart = loadavg()
  .map((l) => l.toFixed(2))
  .join(" ");
const upstream: FakeUpstream = await startFakeUpstream({ record: false });
const results: SubjectResult[] = [];
const notes: string[] = [];
const exitCodes: Record<string, unknown> = {};
let failure: unknown;
try {
  const direct: BenchSubject = {
    target: {
      name: "direct",
      url: `${upstream.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
    },
    cpuSeconds: () => ({ [SELF]: selfCpuSeconds() }),
    peakRssMb: () => Number.NaN,
    memoryNote: "",
    stop: async () => ({}),
  };
  results.push(await measure("direct", direct));

  log("standalone: starting in-process");
  const standalone = await startStandaloneSubject(upstream.baseUrl);
  try {
    const stopProfile = args.cpuProfDir ? await startInProcessProfile() : undefined;
    const result = await measure("standalone", standalone);
    results.push(result);
    if (stopProfile && args.cpuProfDir) {
      const file = join(args.cpuProfDir, `standalone-${process.pid}.cpuprofile`);
      await stopProfile(file);
      const summary = summarizeProfile(file, 12, result.saturationWindowUs);
      notes.push(
        `standalone CPU profile, saturation run, self time (${file}):`,
        ...summary.map((l) => `  ${l}`),
      );
    }
    notes.push(
      `standalone: this process's RSS was ${standalone.rssBeforeMb.toFixed(1)} MB before the gateway started (modules loaded), ${standalone.rssReadyMb.toFixed(1)} MB once it was ready, before load`,
    );
  } finally {
    await standalone.stop();
  }

  const urls = distributedUrls();
  if ("missing" in urls) {
    notes.push(
      `distributed: SKIPPED, ${urls.missing.join(", ")} not set (set DATABASE_URL, REDIS_URL and NATS_URL to include it)`,
    );
  } else {
    log("distributed: creating a database, starting routing, budget, usage-writer, ingress");
    const distributed = await startDistributedSubject(urls, upstream.baseUrl, pinned, args.cpuProfDir);
    notes.push(`distributed pinning: ${distributed.pinning}`);
    notes.push(
      `distributed: ingress RSS once ready, before load: ${distributed.ingressRssReadyMb.toFixed(1)} MB (run from source through tsx)`,
    );
    let window: [number, number] | undefined;
    try {
      const result = await measure("distributed", distributed);
      results.push(result);
      window = result.saturationWindowUs;
    } finally {
      Object.assign(exitCodes, await distributed.stop());
      notes.push(`distributed exit codes after SIGTERM: ${JSON.stringify(exitCodes)}`);
      for (const [name, pid] of Object.entries(distributed.pids)) {
        const file = args.cpuProfDir ? childProfile(args.cpuProfDir, pid) : undefined;
        if (file)
          notes.push(
            `${name} CPU profile, saturation run, self time (${file}):`,
            ...summarizeProfile(file, 8, window).map((l) => `  ${l}`),
          );
      }
    }
  }
} catch (error) {
  failure = error;
} finally {
  await upstream.close();
}

if (results.length > 0) {
  const direct = results[0]!;
  const derived = new Map<string, Derived>(results.map((r) => [r.name, derive(r, direct)]));
  const header = [
    `Spine benchmark  ${new Date().toISOString()}  node ${process.version}  ${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
    `Client: undici request, keep-alive Agent; ${args.warmup} warm-up + ${args.calls} measured calls; TTFB over ${args.ttfbCalls} streamed calls.`,
    "Loopback only (127.0.0.1). Load generator, fake upstream and gateway share this machine's cores;",
    `pinning: ${pinning}. Load average at start: ${loadAtStart} (anything else running skews every number).`,
    "Standalone runs inside this process: its numbers include the load generator's and fake upstream's work on the same event loop.",
  ];
  console.log(renderReport(results, derived, header));
  console.log("");
  for (const note of notes) console.log(note);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = join(repoRoot, "bench", "results", `spine-${stamp}.json`);
  mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
  const json = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().map((c) => c.model),
    args,
    pinning,
    targets: TARGETS,
    results,
    derived: Object.fromEntries(derived),
    notes,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
if (failure) {
  console.error("bench failed:", failure);
  process.exitCode = 1;
}
// Whatever still holds the event loop (a pool closing slowly) must not keep the bench alive.
setTimeout(() => process.exit(), 3000).unref();
