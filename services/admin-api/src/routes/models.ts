import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";

/** `/api/models`: filled in by the models work. */
export function registerModelRoutes(_api: FastifyInstance, _deps: AdminDeps): void {}
