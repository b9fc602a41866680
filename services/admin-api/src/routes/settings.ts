import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";

/** `/api/settings`, `/api/audit`, `/api/system/*`: filled in by the settings work. */
export function registerSettingsRoutes(_api: FastifyInstance, _deps: AdminDeps): void {}
