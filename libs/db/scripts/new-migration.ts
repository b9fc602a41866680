/**
 * Authors the next migration offline (no database, no Prisma engine download).
 *
 *   npm run migration:new -- <name>           diff schema.prisma against the last snapshot
 *   npm run migration:new -- <name> --empty   empty migration.sql for hand-written SQL
 *
 * See libs/db/README.md for the full workflow.
 */
import { fileURLToPath } from "node:url";
import { authorMigration } from "../src/migrations/author.js";

const args = process.argv.slice(2);
const empty = args.includes("--empty");
const name = args.find((arg) => !arg.startsWith("--"));
if (!name) {
  console.error("usage: npm run migration:new -- <name> [--empty]");
  process.exit(1);
}

const result = await authorMigration({
  name,
  empty,
  schemaPath: fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url)),
  migrationsDir: fileURLToPath(new URL("../prisma/migrations", import.meta.url)),
});

if (result.status === "no-changes") {
  console.log("no changes: schema.prisma matches the latest migration snapshot; nothing written");
} else {
  console.log(`wrote ${result.directory}/migration.sql (+ schema.prisma snapshot)`);
  console.log("review the SQL, run the libs/db tests, then commit the folder");
}
