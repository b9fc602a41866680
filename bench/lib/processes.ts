import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus } from "node:os";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..");

/** A free TCP port on loopback (bound then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

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

export interface Child {
  name: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM, then the exit code (null if it had to be SIGKILLed after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

/**
 * Spawn `args` (node is prepended). With `cpuList`, through `taskset -c` (which execs: the pid is
 * node's). Children inherit this process's affinity, so unpinned children get an explicit list too.
 */
export function spawnNode(
  name: string,
  args: string[],
  env: Record<string, string>,
  cpuList?: string,
): Child {
  const [command, argv] = cpuList
    ? ["taskset", ["-c", cpuList, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command as string, argv as string[], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    name,
    child,
    output: () => output,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Poll GET `url` until it answers 200; fail early when a watched child has exited. */
export async function waitForHealth(
  url: string,
  options: { timeoutMs: number; children?: Child[] },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    const dead = options.children?.find((c) => c.child.exitCode !== null || c.child.signalCode !== null);
    if (dead)
      throw new Error(
        `${dead.name} exited (${dead.child.exitCode ?? dead.child.signalCode}):\n${dead.output()}`,
      );
    const ok = await fetch(url)
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status === 200;
      })
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const logs = (options.children ?? []).map((c) => `--- ${c.name}\n${c.output()}`).join("\n");
  throw new Error(`${url} did not answer 200 within ${options.timeoutMs} ms\n${logs}`);
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
