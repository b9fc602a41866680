import type { FastifyInstance } from "fastify";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import {
  publicSettings,
  readSettings,
  readStoredSettings,
  type Settings,
  withDefaults,
  writeSettings,
} from "../settings/settings-store.js";
import { parseSettingsUpdate, settingsUpdate } from "../settings/update-schema.js";
import { registerAuditRoutes } from "../system/audit-routes.js";
import { registerSystemRoutes } from "../system/system-routes.js";

/** Serialises settings writes: each is a read-modify-write of one JSON row, so two would lose one. */
const SETTINGS_LOCK = 727_003;

/**
 * `/api/settings`, plus `/api/audit` and `/api/system/*` (registered from here).
 *
 * Settings live in one row (`settings`, id "global"). `port` and `host` are stored at once but
 * apply at the next restart: the process binds its socket at start and does not move it under
 * running requests. The other fields are read where they are used, after the config change each
 * write publishes.
 */
export function registerSettingsRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  // Any signed-in user: the dashboard reads it for every role (SPEC names no permission for GET).
  api.get("/settings", async () => publicSettings(await readSettings(prisma)));

  api.put(
    "/settings",
    { config: { permission: "settings:write", action: "settings:update", body: settingsUpdate.partial() } },
    async (request) => {
      const update = parseSettingsUpdate(request.body);
      request.auditDetails = { changed: Object.keys(update) };
      const settings = await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SETTINGS_LOCK})`;
        const stored = { ...(await readStoredSettings(tx)), ...update };
        await writeSettings(tx, stored as unknown as Settings);
        return withDefaults(stored);
      });
      publishConfigChange(deps, "settings", "global", "updated");
      return publicSettings(settings);
    },
  );

  registerAuditRoutes(api, deps);
  registerSystemRoutes(api, deps);
}
