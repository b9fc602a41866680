/**
 * Test helpers (`@gw/db/testing`). Never imported by service code.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

/** A throwaway database on a real PostgreSQL server. */
export interface TestDatabase {
  /** Connection string of the new database (same server and credentials as the admin URL). */
  url: string;
  /** Drops the database, terminating any connection still open on it. Idempotent. */
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named database (`gw_test_<random>`) on the server of `adminUrl`, so test
 * files running in parallel never share tables.
 *
 * @param adminUrl - connection string of a role allowed to CREATE DATABASE, e.g.
 *   `postgresql://postgres@127.0.0.1:5432/postgres` (usually `process.env.DATABASE_URL`).
 */
export async function createTestDatabaseUrl(adminUrl: string): Promise<TestDatabase> {
  // Lowercase letters and digits only: a valid identifier with no quoting surprises.
  const name = `gw_test_${randomBytes(8).toString("hex")}`;
  await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      dropped ??= withAdminClient(adminUrl, (client) => dropDatabase(client, name));
      return dropped;
    },
  };
}

async function dropDatabase(client: pg.Client, name: string): Promise<void> {
  try {
    // PostgreSQL 13+: FORCE terminates the remaining connections (a leaked pool must not block cleanup).
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } catch (err) {
    if ((err as { code?: string }).code !== "42601") throw err; // 42601 = syntax error: before 13
    await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
  }
}

async function withAdminClient<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: "gw-test-databases" });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
