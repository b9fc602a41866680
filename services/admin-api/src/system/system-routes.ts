import { resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";
import { AdminError } from "../errors.js";
import { readSettings } from "../settings/settings-store.js";
import { createUpdateChecker } from "./update-checker.js";

/**
 * The environment is read at each call (not once at start) for these three: tests flip
 * `SERVICE_DOCKER` around a call in-process, and none of them is on the hot path.
 * - `SERVICE_DOCKER=1`: set by the image and the Helm chart; updates are refused there (403).
 * - `SERVICE_RELEASE_URL`: the release source (format in release-source.ts).
 * - `SERVICE_DATA_DIR`: where embedded data lives (default ./data), shown resolved.
 */
const isDocker = () => process.env.SERVICE_DOCKER === "1";
const releaseUrl = () => process.env.SERVICE_RELEASE_URL?.trim() || undefined;
const dataDir = () => resolve(process.env.SERVICE_DATA_DIR ?? "./data");

/** `/api/system/info`, `/api/system/update-check`, `/api/system/update` (SPEC "Health and system"). */
export function registerSystemRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const readChannel = async () => (await readSettings(deps.prisma)).channel;
  const checker = createUpdateChecker({
    currentVersion: deps.version,
    logger: deps.logger,
    readChannel,
    releaseUrl,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const stopChecks = checker.schedule();
  api.addHook("onClose", async () => stopChecks());

  // Public (SPEC "Authentication" 5): the dashboard shows it before sign-in.
  api.get("/system/info", { config: { public: true } }, async () => ({
    version: deps.version,
    nodeVersion: process.version,
    platform: process.platform,
    // Configuration comes from the environment; relative paths resolve from the working directory.
    configDir: process.cwd(),
    dataDir: dataDir(),
    uptimeSeconds: Math.floor(process.uptime()),
    channel: await readChannel(),
    isDocker: isDocker(),
    updateInfo: checker.latest(),
  }));

  api.get("/system/update-check", async () => checker.check());

  api.post(
    "/system/update",
    { config: { permission: "admin", action: "system:update" } },
    async (request, reply) => {
      if (isDocker())
        throw new AdminError(
          403,
          "update_in_docker",
          "This instance runs in a container: update it by pulling the new image and redeploying.",
        );
      if (process.platform === "win32")
        throw new AdminError(
          400,
          "update_unsupported_platform",
          "Updates from the API are not supported on Windows: install the new version by hand.",
        );
      const latest = checker.latest();
      request.auditDetails = { currentVersion: deps.version, latestVersion: latest?.latestVersion ?? null };
      // After the answer: the update step must never fail the request nor crash the process.
      setImmediate(() => runUpdate(deps, latest?.latestVersion ?? null));
      return reply.code(202).send({
        message:
          "Update accepted. This installation cannot replace itself: pull the new version " +
          "(git pull and npm ci, or the new release package) and restart the service. " +
          "The steps are written to the service log.",
      });
    },
  );
}

/**
 * The background update step. Self-replacement is not possible for this build (it may run from a
 * checkout, a package or a read-only filesystem), so the step tells the operator what to do.
 */
function runUpdate(deps: AdminDeps, latestVersion: string | null): void {
  try {
    deps.logger.warn(
      { currentVersion: deps.version, latestVersion },
      "update requested: this build cannot update itself; pull the new version (git pull && npm ci, " +
        "or install the new release package), then restart the service",
    );
  } catch {
    // Logging must not take the process down either.
  }
}
