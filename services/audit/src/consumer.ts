import { type Bus, decodeJson, Streams, Subjects, type Subscription } from "@gw/bus";
import type { Prisma, PrismaClient } from "@gw/db";
import { AuditEntry } from "@gw/proto";

export const AUDIT_DURABLE = "audit";

/** Stores audit entries idempotently (same pattern as the usage writer: ack after commit). */
export async function startAuditWriter(deps: { bus: Bus; prisma: PrismaClient }): Promise<Subscription> {
  return deps.bus.consume(
    {
      stream: Streams.AUDIT.name,
      durable: AUDIT_DURABLE,
      filterSubject: Subjects.auditEntry,
      maxDeliver: 10,
      maxInFlight: 16,
    },
    async (message) => {
      const entry = AuditEntry.fromJSON(decodeJson(message.data));
      if (!entry.id) throw new Error("audit entry without id");
      let details: Prisma.InputJsonValue = {};
      try {
        details = entry.detailsJson ? (JSON.parse(entry.detailsJson) as Prisma.InputJsonValue) : {};
      } catch {
        details = { raw: entry.detailsJson };
      }
      await deps.prisma.auditEntry.createMany({
        data: [
          {
            id: entry.id,
            timestamp: new Date(entry.timestamp || Date.now()),
            userId: entry.userId || null,
            email: entry.email || null,
            endpoint: entry.endpoint,
            action: entry.action,
            result: entry.result,
            details,
          },
        ],
        skipDuplicates: true,
      });
    },
  );
}
