import { join } from "node:path";
import { type Child, spawnNode } from "@gw/testing";

const root = join(import.meta.dirname, "..", "..");

/** Run one service's main as its own process, from source, as distributed mode does. */
export function startServiceProcess(name: string, env: Record<string, string>): Child {
  return spawnNode(
    name,
    ["--import", "tsx", join(root, "services", name, "src", "main.ts")],
    {
      ...process.env,
      LOG_LEVEL: process.env.SERVICE_LOG_LEVEL ?? "warn",
      ...env,
    },
    { cwd: root },
  );
}
