import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";

/** `/api/projects` with tokens and members: filled in by the projects work. */
export function registerProjectRoutes(_api: FastifyInstance, _deps: AdminDeps): void {}
