import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/*
 * Child processes for tests and benchmarks that run services as distributed mode does: one
 * process each, stopped with SIGTERM like an orchestrator would.
 */

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
  env: Record<string, string | undefined>,
  options: { cwd?: string; cpuList?: string } = {},
): Child {
  const { cpuList } = options;
  const [command, argv] = cpuList
    ? ["taskset", ["-c", cpuList, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command as string, argv as string[], {
    cwd: options.cwd ?? process.cwd(),
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
