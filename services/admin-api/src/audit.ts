import { randomUUID } from "node:crypto";
import { encodeJson, Subjects } from "@gw/bus";
import { AuditEntry } from "@gw/proto";
import type { FastifyRequest } from "fastify";
import type { AdminDeps } from "./deps.js";

export type AuditResult = "success" | "forbidden" | "error";

/**
 * One audit entry on the bus (`audit.entry`, through the outbox: it survives a bus outage), stored
 * by the audit service. `details` is built by each route from safe fields only (ids, names,
 * changed field names): bodies are never copied in, so a password, key or token cannot leak here.
 */
export function publishAudit(
  deps: AdminDeps,
  request: FastifyRequest,
  entry: { action: string; result: AuditResult; details?: Record<string, unknown> },
): void {
  const principal = request.principal;
  const message: AuditEntry = {
    id: randomUUID(),
    timestamp: new Date((deps.now ?? Date.now)()).toISOString(),
    userId: principal?.userId ?? "",
    email: principal?.email ?? "",
    endpoint: `${request.method} ${request.url.split("?")[0]}`,
    action: entry.action,
    result: entry.result,
    detailsJson: JSON.stringify(entry.details ?? {}),
  };
  deps.outbox.enqueue({
    id: message.id,
    subject: Subjects.auditEntry,
    data: encodeJson(AuditEntry.toJSON(message)),
  });
}
