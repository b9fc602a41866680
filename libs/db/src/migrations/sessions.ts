import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { DbLogger } from "../logger.js";

/**
 * Fixed key of the PostgreSQL advisory lock that serialises migration runs across replicas.
 * Arbitrary but constant: every build of the gateway must use the same value.
 */
export const MIGRATION_LOCK_KEY = 7_283_640_113_205_901_311n;

/** Where migrations are applied: a PostgreSQL server (by URL) or an open PGlite instance. */
export type MigrationTarget = { kind: "postgres"; url: string } | { kind: "pglite"; pglite: PGlite };

/** Row shape returned by {@link MigrationSession.query}. */
export type Row = Record<string, unknown>;

/** One connection that holds the migration lock for the whole run. */
export interface MigrationSession {
  /** Blocks until this session is the only migrator; logs when it has to wait. */
  lock(): Promise<void>;
  unlock(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a (multi-statement) migration and records it in `_gw_migrations`, atomically. */
  applyInTransaction(sql: string, record: { name: string; checksum: string }): Promise<void>;
  close(): Promise<void>;
}

const RECORD_SQL = "INSERT INTO _gw_migrations (name, checksum) VALUES ($1, $2)";

/** Opens a session on a dedicated connection (PostgreSQL) or on the shared PGlite instance. */
export async function openSession(target: MigrationTarget, logger: DbLogger): Promise<MigrationSession> {
  return target.kind === "postgres" ? openPostgresSession(target.url, logger) : pgliteSession(target.pglite);
}

/**
 * PostgreSQL: a dedicated `pg.Client` (not the Prisma pool) because a session-level advisory lock
 * belongs to one connection; if the process dies, the server drops the connection and the lock.
 */
async function openPostgresSession(url: string, logger: DbLogger): Promise<MigrationSession> {
  const client = new pg.Client({ connectionString: url, application_name: "gw-migrations" });
  // Without a listener, a connection dropped by the server would crash the process.
  client.on("error", (err) => logger.warn({ err }, "migration connection error"));
  await client.connect();
  const key = MIGRATION_LOCK_KEY.toString();
  return {
    async lock() {
      const tried = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [
        key,
      ]);
      if (tried.rows[0]?.ok) return;
      logger.info({ lockKey: key }, "another instance is migrating; waiting for the migration lock");
      await client.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    },
    async unlock() {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
    },
    async query(sql, params) {
      return (await client.query(sql, params)).rows;
    },
    async applyInTransaction(sql, record) {
      await client.query("BEGIN");
      try {
        // No parameters: pg uses the simple query protocol, which accepts several statements.
        await client.query(sql);
        await client.query(RECORD_SQL, [record.name, record.checksum]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    },
    async close() {
      await client.end();
    },
  };
}

/**
 * In-process queue per PGlite instance. PGlite has a single backend session, so an advisory lock
 * would be re-entrant and exclude nothing; and a PGlite data dir is only ever opened by one
 * process, so serialising within this process is sufficient.
 */
const pgliteQueues = new WeakMap<PGlite, Promise<void>>();

function pgliteSession(pglite: PGlite): MigrationSession {
  let release: (() => void) | undefined;
  return {
    async lock() {
      const previous = pgliteQueues.get(pglite) ?? Promise.resolve();
      const mine = new Promise<void>((resolve) => {
        release = resolve;
      });
      pgliteQueues.set(
        pglite,
        previous.then(() => mine),
      );
      await previous;
    },
    async unlock() {
      release?.();
    },
    async query(sql, params) {
      return (await pglite.query<Row>(sql, params)).rows;
    },
    async applyInTransaction(sql, record) {
      await pglite.transaction(async (tx) => {
        await tx.exec(sql);
        await tx.query(RECORD_SQL, [record.name, record.checksum]);
      });
    },
    async close() {
      // The PGlite instance belongs to the Database; closing it is Database.close()'s job.
    },
  };
}
