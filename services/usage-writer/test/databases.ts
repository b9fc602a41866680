import { createDatabase, type Database, type Prisma } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";

/** A migrated, empty database of one backend, and how to get rid of it. */
export interface OpenDatabase {
  db: Database;
  /** Another client on the same database (a second replica); PGlite has one opener: the same. */
  replica(): Promise<Database>;
  close(): Promise<void>;
}

export interface Backend {
  name: "pglite" | "postgres";
  open(): Promise<OpenDatabase>;
}

/**
 * PGlite (in memory) always; PostgreSQL too when DATABASE_URL is set, each suite in a throwaway
 * database of its own (`createTestDatabaseUrl`), so suites running in parallel never share rows.
 */
export function backends(): Backend[] {
  const list: Backend[] = [
    {
      name: "pglite",
      async open() {
        const db = await createDatabase();
        await db.migrate();
        return { db, replica: async () => db, close: () => db.close() };
      },
    },
  ];
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    list.push({
      name: "postgres",
      async open() {
        const testDb = await createTestDatabaseUrl(adminUrl);
        const db = await createDatabase({ url: testDb.url, poolMax: 4 });
        await db.migrate();
        const replicas: Database[] = [];
        return {
          db,
          async replica() {
            const replica = await createDatabase({ url: testDb.url, poolMax: 4 });
            replicas.push(replica);
            return replica;
          },
          async close() {
            for (const replica of replicas) await replica.close();
            await db.close();
            await testDb.drop();
          },
        };
      },
    });
  }
  return list;
}

/** A project row (usage_records has no foreign key to it, but the API joins on it). */
export async function createProject(db: Database, id: string): Promise<void> {
  await db.prisma.project.create({ data: { id, name: id, slug: id } });
}

export type Row = Prisma.UsageRecordCreateManyInput;

let sequence = 0;

/** A usage row with plausible defaults; `overrides` set what a test cares about. */
export function usageRow(overrides: Partial<Row> = {}): Row {
  sequence += 1;
  return {
    id: `usg_${String(sequence).padStart(8, "0")}_${Math.random().toString(36).slice(2, 8)}`,
    timestamp: new Date("2026-11-20T10:15:00.000Z"),
    projectId: "proj_a",
    projectSlug: "proj-a",
    modelId: "model_a",
    provider: "openai",
    inputTokens: 10,
    outputTokens: 20,
    cacheTokens: 0,
    totalTokens: 30,
    costMicros: 1234n,
    durationMs: 250,
    outcome: "success",
    status: 200,
    traceId: "trace",
    callType: "completion",
    trace: [{ stage: "route" }],
    ...overrides,
  };
}
