import type { SaturationResult } from "./http-load.js";
import { type Percentiles, round } from "./stats.js";

export interface SubjectResult {
  name: "direct" | "standalone" | "distributed";
  latency: Percentiles;
  ttfb: Percentiles;
  streamTotal: Percentiles;
  /** Open-loop run at a fixed rate. */
  fixedRate: Percentiles & { rate: number };
  saturation: SaturationResult;
  /** CPU seconds used during the saturation run, per process. */
  saturationCpu: Record<string, number>;
  peakRssMb: number;
  memoryNote: string;
  /** The saturation run on the profiler clock (µs), to cut CPU profiles to it. */
  saturationWindowUs: [number, number];
  /** Cores the whole machine kept busy during the saturation run (/proc/stat), out of all of them. */
  machineBusyCores: number;
}

export interface Derived {
  addedP50?: number;
  addedP99?: number;
  addedTtfbP50?: number;
  addedFixedRateP50?: number;
  addedFixedRateP99?: number;
  /** Gateway requests per second per core of gateway CPU (how it is estimated: `perCoreHow`). */
  perCore?: number;
  perCoreHow?: string;
}

interface Targets {
  addedP50: number;
  addedP99: number;
  perCore: number;
  addedTtfbP50?: number;
  rssMb: number;
}

export const TARGETS: Record<"standalone" | "distributed", Targets> = {
  standalone: { addedP50: 0.3, addedP99: 1.0, perCore: 3500, addedTtfbP50: 0.5, rssMb: 200 },
  distributed: { addedP50: 1.5, addedP99: 5, perCore: 2000, rssMb: 200 },
};

const SELF = "bench process";

/** Added latency over the floor, and gateway throughput per core from CPU time during saturation. */
export function derive(result: SubjectResult, direct: SubjectResult): Derived {
  if (result.name === "direct") return {};
  const derived: Derived = {
    addedP50: result.latency.p50 - direct.latency.p50,
    addedP99: result.latency.p99 - direct.latency.p99,
    addedTtfbP50: result.ttfb.p50 - direct.ttfb.p50,
    addedFixedRateP50: result.fixedRate.p50 - direct.fixedRate.p50,
    addedFixedRateP99: result.fixedRate.p99 - direct.fixedRate.p99,
  };
  if (result.name === "standalone") {
    // One process does everything: the gateway's share is this process's CPU per request minus the floor's.
    const perRequest =
      result.saturationCpu[SELF]! / result.saturation.ok - direct.saturationCpu[SELF]! / direct.saturation.ok;
    derived.perCore = 1 / perRequest;
    derived.perCoreHow = "1 / (process CPU per request - direct floor's CPU per request)";
  } else {
    derived.perCore = result.saturation.ok / result.saturationCpu.ingress!;
    derived.perCoreHow = "requests / ingress CPU seconds (/proc/<pid>/stat)";
  }
  return derived;
}

const fmt = (value: number | undefined, digits = 3) =>
  value === undefined || Number.isNaN(value) ? "-" : round(value, digits).toFixed(digits);
const mark = (ok: boolean) => (ok ? "ok" : "MISS");
const atMost = (value: number | undefined, target: number | undefined, digits = 3) =>
  target === undefined || value === undefined
    ? fmt(value, digits)
    : `${fmt(value, digits)} (<= ${target}) ${mark(value <= target)}`;
const atLeast = (value: number | undefined, target: number | undefined) =>
  target === undefined || value === undefined
    ? fmt(value, 0)
    : `${fmt(value, 0)} (>= ${target}) ${mark(value >= target)}`;

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function renderReport(
  results: SubjectResult[],
  derivedOf: Map<string, Derived>,
  header: string[],
): string {
  const target = (name: string) => TARGETS[name as keyof typeof TARGETS] as Targets | undefined;
  const out: string[] = [...header, ""];
  out.push("Non-streaming latency, 1 keep-alive connection, sequential, ms (nearest-rank percentiles)");
  out.push(
    table(
      ["", "calls", "p50", "p90", "p99", "added p50 (target)", "added p99 (target)"],
      results.map((r) => {
        const d = derivedOf.get(r.name)!;
        const t = target(r.name);
        return [
          r.name,
          String(r.latency.count),
          fmt(r.latency.p50),
          fmt(r.latency.p90),
          fmt(r.latency.p99),
          atMost(d.addedP50, t?.addedP50),
          atMost(d.addedP99, t?.addedP99),
        ];
      }),
    ),
  );
  out.push("", `Non-streaming latency at a fixed rate (open loop, from each request's due time), ms`);
  out.push(
    table(
      ["", "req/s", "calls", "p50", "p99", "added p50 (target)", "added p99 (target)"],
      results.map((r) => {
        const d = derivedOf.get(r.name)!;
        const t = target(r.name);
        return [
          r.name,
          String(r.fixedRate.rate),
          String(r.fixedRate.count),
          fmt(r.fixedRate.p50),
          fmt(r.fixedRate.p99),
          atMost(d.addedFixedRateP50, t?.addedP50),
          atMost(d.addedFixedRateP99, t?.addedP99),
        ];
      }),
    ),
  );
  out.push("", "Streaming, time to first body chunk, 1 connection, sequential, ms");
  out.push(
    table(
      ["", "calls", "TTFB p50", "TTFB p99", "whole stream p50", "added TTFB p50 (target)"],
      results.map((r) => {
        const d = derivedOf.get(r.name)!;
        return [
          r.name,
          String(r.ttfb.count),
          fmt(r.ttfb.p50),
          fmt(r.ttfb.p99),
          fmt(r.streamTotal.p50),
          atMost(d.addedTtfbP50, target(r.name)?.addedTtfbP50),
        ];
      }),
    ),
  );
  const first = results[0]!.saturation;
  out.push(
    "",
    `Saturation: ${first.connections} connections, closed loop, ~${round(first.seconds, 1)} s each`,
  );
  out.push(
    table(
      [
        "",
        "ok",
        "failed",
        "req/s",
        "gateway req/s per core (target)",
        "machine busy cores",
        "CPU ms per request, by process",
      ],
      results.map((r) => {
        const d = derivedOf.get(r.name)!;
        const cpu = Object.entries(r.saturationCpu)
          .map(([name, seconds]) => `${name} ${fmt((seconds * 1000) / r.saturation.ok, 3)}`)
          .join(", ");
        return [
          r.name,
          String(r.saturation.ok),
          String(r.saturation.failed),
          fmt(r.saturation.requestsPerSecond, 0),
          atLeast(d.perCore, target(r.name)?.perCore),
          fmt(r.machineBusyCores, 2),
          cpu,
        ];
      }),
    ),
  );
  for (const r of results)
    if (r.saturation.firstFailure) out.push(`  ${r.name} first failure: ${r.saturation.firstFailure}`);
  for (const r of results) {
    const how = derivedOf.get(r.name)?.perCoreHow;
    if (how) out.push(`  ${r.name} per core = ${how}`);
  }
  out.push("", "Gateway memory");
  out.push(
    table(
      ["", "peak RSS MB (target)", "what"],
      results
        .filter((r) => r.name !== "direct")
        .map((r) => [r.name, atMost(r.peakRssMb, target(r.name)?.rssMb, 1), r.memoryNote]),
    ),
  );
  return out.join("\n");
}
