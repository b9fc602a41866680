/**
 * Loads Prisma's WebAssembly schema engine and diffs two Prisma schemas without a database.
 *
 * Why by hand: the package entry (`schema_engine.js`) does `import * as wasm from "./x.wasm"`,
 * which Node 20 cannot load. We instantiate the module ourselves, with the package's generated
 * JS glue (`schema_engine_bg.js`) as the import object, exactly what a bundler would do.
 *
 * Used only by authoring tools (scripts/new-migration.ts), never at service runtime: do not
 * re-export it from the package index, or bundles would pull in the engine glue.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as engineGlue from "@prisma/schema-engine-wasm/schema_engine_bg";

type SchemaEngine = engineGlue.SchemaEngine;

// The repo's `lib: ES2023` has no WebAssembly typings (they ship with lib.dom); declare what we use.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

let initialised = false;

/** Instantiates the wasm module once per process and wires it into the JS glue. */
function initialiseWasm(): void {
  if (initialised) return;
  const glueUrl = import.meta.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const wasmPath = fileURLToPath(new URL("./schema_engine_bg.wasm", glueUrl));
  const module = new WebAssembly.Module(readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { "./schema_engine_bg.js": engineGlue });
  engineGlue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  initialised = true;
}

/**
 * The engine opens a connection and probes the server version at construction, even for a pure
 * schema-to-schema diff. This adapter answers that probe (as PostgreSQL 15) and refuses anything
 * else, so an accidental database-dependent command fails loudly instead of hanging or guessing.
 */
function offlinePostgresAdapterFactory(): SqlMigrationAwareDriverAdapterFactory {
  const refuse = (what: string) => async (): Promise<never> => {
    throw new Error(`offline schema engine has no database (attempted ${what})`);
  };
  const adapter = {
    provider: "postgres" as const,
    adapterName: "gw-offline",
    async queryRaw(query: { sql: string }) {
      if (query.sql.includes("server_version_num")) {
        // Columns: EXISTS(public schema), version(), numeric version. Types: Boolean, Text, Int32.
        return {
          columnNames: ["exists", "version", "numeric_version"],
          columnTypes: [5, 7, 0],
          rows: [[true, "PostgreSQL 15.0 (gw offline diff)", 150000]],
        };
      }
      throw new Error(`offline schema engine has no database (attempted query: ${query.sql})`);
    },
    executeRaw: refuse("executeRaw"),
    executeScript: refuse("executeScript"),
    startTransaction: refuse("startTransaction"),
    async dispose() {},
  };
  return {
    provider: "postgres",
    adapterName: "gw-offline",
    connect: async () => adapter as never,
    connectToShadowDb: async () => adapter as never,
  };
}

/** Result of {@link diffSchemas}. */
export interface SchemaDiff {
  /** True when the two schemas produce the same database. */
  empty: boolean;
  /** PostgreSQL migration script (Prisma's `-- CreateTable` style comments included). */
  sql: string;
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * SQL that turns a database shaped like `fromSchema` (or an empty database when `null`) into one
 * shaped like `toSchema`. Pure computation: no database involved.
 */
export async function diffSchemas(fromSchema: string | null, toSchema: string): Promise<SchemaDiff> {
  initialiseWasm();
  const engine: SchemaEngine = await engineGlue.SchemaEngine.new(
    { datamodels: [["schema.prisma", toSchema]] },
    () => {}, // engine log lines (JSON); nothing useful for authoring
    bindMigrationAwareSqlAdapterFactory(offlinePostgresAdapterFactory()),
  );
  try {
    const datamodel = (content: string) => ({
      tag: "schemaDatamodel" as const,
      files: [{ path: "schema.prisma", content }],
    });
    const result = await engine.diff({
      from: fromSchema === null ? { tag: "empty" } : datamodel(fromSchema),
      to: datamodel(toSchema),
      script: true,
      exitCode: true, // exit code 2 = non-empty diff; more reliable than parsing the script
      filters: NO_FILTERS,
    });
    return { empty: result.exitCode === 0, sql: result.stdout ?? "" };
  } finally {
    engine.free();
  }
}
