import type { HttpTarget } from "./http-load.js";

/** What the bench needs from a thing under test (the direct floor, standalone, distributed). */
export interface BenchSubject {
  target: HttpTarget;
  /** CPU seconds used so far, per process that takes part (this process included). */
  cpuSeconds(): Record<string, number>;
  /** Peak resident memory of the gateway process, MB (NaN when not applicable). */
  peakRssMb(): number;
  /** A line on what the memory number covers. */
  memoryNote: string;
  stop(): Promise<Record<string, number | null>>;
}

/** CPU seconds of this process (load generator, fake upstream and, in standalone, the gateway). */
export function selfCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

export const SELF = "bench process";
export const MODEL_ID = "bench-model";
export const UPSTREAM_MODEL = "gpt-fake-upstream";
export const UPSTREAM_KEY = "sk-upstream-bench";
