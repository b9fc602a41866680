/**
 * Runs the database contract against PGlite (always) and PostgreSQL (when DATABASE_URL is set,
 * in a throwaway database), plus backend-specific behaviour: replicas migrating concurrently,
 * failed migrations rolling back, and a PGlite data dir surviving a reopen.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import {
  createDatabase,
  type DbLogger,
  MIGRATION_LOCK_KEY,
  readMigrations,
  resolveMigrationsDir,
  runMigrations,
} from "../src/index.js";
import { createTestDatabaseUrl } from "../src/testing.js";
import { databaseContract } from "./contract-suite.js";

const DATABASE_URL = process.env.DATABASE_URL;
const committed = readMigrations(resolveMigrationsDir()).map((m) => m.name);

describe("PGlite (in-memory)", () => {
  databaseContract(async () => {
    const db = await createDatabase();
    return { db, dispose: () => db.close() };
  });
});

describe("PGlite (data dir)", () => {
  it("keeps its data across a reopen; concurrent migrate() calls apply once", async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-db-pglite-"));
    try {
      let startedAt = performance.now();
      const first = await createDatabase({ dataDir });
      const reports = await Promise.all([first.migrate(), first.migrate(), first.migrate()]);
      t.diagnostic(`fresh PGlite init + migrate: ${Math.round(performance.now() - startedAt)} ms`);
      assert.deepEqual(reports.flatMap((r) => r.applied).sort(), committed);
      await first.prisma.project.create({ data: { id: "proj_keep", name: "keep", slug: "keep" } });
      await first.close();

      startedAt = performance.now();
      const reopened = await createDatabase({ dataDir });
      const report = await reopened.migrate();
      t.diagnostic(`PGlite reopen + migrate: ${Math.round(performance.now() - startedAt)} ms`);
      try {
        assert.deepEqual(report, { applied: [], alreadyApplied: committed.length });
        const project = await reopened.prisma.project.findUnique({ where: { id: "proj_keep" } });
        assert.equal(project?.slug, "keep");
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

if (!DATABASE_URL) {
  describe("PostgreSQL", () => {
    it("contract suite and concurrency tests", { skip: "DATABASE_URL is not set" }, () => {});
  });
} else {
  const adminUrl = DATABASE_URL;

  describe("PostgreSQL", () => {
    databaseContract(async () => {
      const testDb = await createTestDatabaseUrl(adminUrl);
      const db = await createDatabase({ url: testDb.url, poolMax: 4 });
      return {
        db,
        dispose: async () => {
          await db.close();
          await testDb.drop();
        },
      };
    });
  });

  describe("PostgreSQL replicas and failures", () => {
    it("three concurrent migrate() calls on separate clients apply each migration once", async () => {
      const testDb = await createTestDatabaseUrl(adminUrl);
      const replicas = await Promise.all(
        [1, 2, 3].map(() => createDatabase({ url: testDb.url, poolMax: 1 })),
      );
      try {
        const reports = await Promise.all(replicas.map((db) => db.migrate()));
        assert.deepEqual(reports.flatMap((r) => r.applied).sort(), committed);
        for (const report of reports) {
          assert.equal(report.applied.length + report.alreadyApplied, committed.length);
        }
        const rows = await replicas[0]!.prisma.$queryRaw<{ name: string }[]>`SELECT name FROM _gw_migrations`;
        assert.equal(rows.length, committed.length);
      } finally {
        await Promise.all(replicas.map((db) => db.close()));
        await testDb.drop();
      }
    });

    it("waits while another session holds the migration advisory lock", async () => {
      const testDb = await createTestDatabaseUrl(adminUrl);
      const holder = new pg.Client({ connectionString: testDb.url });
      const messages: string[] = [];
      const record = (_obj: object, msg?: string) => messages.push(msg ?? "");
      const logger: DbLogger = { info: record, warn: record, error: record, debug: record };
      try {
        await holder.connect();
        await holder.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY.toString()]);
        let settled = false;
        const run = runMigrations({ kind: "postgres", url: testDb.url }, { logger }).finally(() => {
          settled = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(settled, false, "migrate() must block while the lock is held elsewhere");
        assert.ok(messages.some((m) => m.includes("waiting for the migration lock")));
        await holder.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY.toString()]);
        assert.deepEqual((await run).applied, committed);
      } finally {
        await holder.end();
        await testDb.drop();
      }
    });

    it("rolls back a failing migration and does not record it", async () => {
      const testDb = await createTestDatabaseUrl(adminUrl);
      const dir = mkdtempSync(join(tmpdir(), "gw-db-migrations-"));
      const client = new pg.Client({ connectionString: testDb.url });
      try {
        cpSync(resolveMigrationsDir(), dir, { recursive: true });
        const broken = "29991231235959_broken";
        cpSync(join(dir, committed[0]!), join(dir, broken), { recursive: true });
        writeFileSync(join(dir, broken, "migration.sql"), "CREATE TABLE half_done (id int);\nSELECT 1/0;\n");

        const target = { kind: "postgres" as const, url: testDb.url };
        await assert.rejects(runMigrations(target, { migrationsDir: dir }), new RegExp(broken));
        await client.connect();
        const tables = await client.query("SELECT to_regclass('half_done') AS t");
        assert.equal(tables.rows[0].t, null, "the failed migration's DDL was rolled back");
        const recorded = await client.query("SELECT name FROM _gw_migrations ORDER BY name");
        assert.deepEqual(
          recorded.rows.map((r) => r.name),
          committed,
        );
        // The lock was released: a corrected run proceeds.
        writeFileSync(join(dir, broken, "migration.sql"), "CREATE TABLE half_done (id int);\n");
        assert.deepEqual((await runMigrations(target, { migrationsDir: dir })).applied, [broken]);
      } finally {
        await client.end();
        rmSync(dir, { recursive: true, force: true });
        await testDb.drop();
      }
    });

    it("createTestDatabaseUrl gives a separate database and drop() removes it despite open connections", async () => {
      const testDb = await createTestDatabaseUrl(adminUrl);
      const name = new URL(testDb.url).pathname.slice(1);
      assert.match(name, /^gw_test_[a-z0-9]+$/);
      const leaked = new pg.Client({ connectionString: testDb.url });
      leaked.on("error", () => {}); // terminated by drop(): expected
      await leaked.connect();
      await testDb.drop();
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
        assert.equal(found.rowCount, 0);
      } finally {
        await admin.end();
        await leaked.end().catch(() => {});
      }
    });
  });
}
