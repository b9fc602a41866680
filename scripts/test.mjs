// The project's test command (`npm test`): every *.test.ts under libs/, services/ and test/, run by
// node's test runner through tsx. Suites that need real servers run when DATABASE_URL, REDIS_URL
// and NATS_URL are set and skip themselves otherwise; this line says which, up front.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const filters = process.argv.slice(2);

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const files = ["libs", "services", "test"]
  .flatMap((dir) => findTests(join(root, dir)))
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

const servers = { DATABASE_URL: "PostgreSQL", REDIS_URL: "Redis", NATS_URL: "NATS JetStream" };
const missing = Object.entries(servers).filter(([variable]) => !process.env[variable]);
console.log(
  missing.length === 0
    ? "real-server suites: running against PostgreSQL, Redis and NATS JetStream"
    : `real-server suites skipped: ${missing.map(([variable, name]) => `${name} (${variable} unset)`).join(", ")}`,
);

const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-timeout=120000", ...files],
  { cwd: root, stdio: "inherit", env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" } },
);
process.exit(result.status ?? 1);
