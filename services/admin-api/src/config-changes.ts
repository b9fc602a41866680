import { randomUUID } from "node:crypto";
import { encodeJson, Subjects } from "@gw/bus";
import { ConfigChanged } from "@gw/proto";
import type { AdminDeps } from "./deps.js";

export type ConfigEntity =
  | "model"
  | "project"
  | "token"
  | "member"
  | "spend_group"
  | "settings"
  | "role"
  | "user"
  | "integration";

/**
 * Every configuration change goes on the bus (`config.changed`, through the outbox) so the caches
 * of ingress, routing and budget drop what they hold, in every replica, within a second; and this
 * process's own cache is dropped at once.
 */
export function publishConfigChange(
  deps: AdminDeps,
  entity: ConfigEntity,
  entityId: string,
  action: "created" | "updated" | "deleted",
): void {
  const message: ConfigChanged = {
    id: randomUUID(),
    timestamp: new Date((deps.now ?? Date.now)()).toISOString(),
    entity,
    entityId,
    action,
  };
  deps.outbox.enqueue({
    id: message.id,
    subject: Subjects.configChanged,
    data: encodeJson(ConfigChanged.toJSON(message)),
  });
  deps.onConfigChanged?.(entity);
}
