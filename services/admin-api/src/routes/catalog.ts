import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";

/** `/api/providers`, `/api/catalog/*`: filled in by the catalog work. */
export function registerCatalogRoutes(_api: FastifyInstance, _deps: AdminDeps): void {}
