import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";

/** `/api/spend-groups`: filled in by the spend-groups work. */
export function registerSpendGroupRoutes(_api: FastifyInstance, _deps: AdminDeps): void {}
