import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..");

/** taskset (util-linux) is on PATH and there are at least two cores to split. */
export function tasksetAvailable(): boolean {
  if (cpus().length < 2) return false;
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Pin every thread of this process to `cpuList` (threads created later inherit it). */
export function pinSelf(cpuList: string): void {
  execFileSync("taskset", ["-a", "-p", "-c", cpuList, String(process.pid)], { stdio: "ignore" });
}

/** A `/proc/<pid>/status` memory field (VmHWM = peak RSS, VmRSS), in MB; NaN where unreadable. */
export function procMemoryMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number.parseInt(line.split(/\s+/)[1]!, 10) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds (user + system) a process has used, from `/proc/<pid>/stat` (clock ticks of 1/100 s). */
export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After "pid (comm) ": state is field 0, utime field 11, stime field 12.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Whole-machine CPU ticks from /proc/stat: busy (everything but idle and iowait) and total. */
export function machineCpuTicks(): { busy: number; total: number } {
  try {
    const fields = readFileSync("/proc/stat", "utf8")
      .split("\n")[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.slice(0, 8).reduce((sum, x) => sum + x, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}
