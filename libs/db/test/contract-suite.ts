/**
 * The database contract every backend (PostgreSQL, PGlite) must satisfy, written once.
 * Tests in one suite share a database and run in order: the first one migrates it.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import {
  type Database,
  MigrationChecksumError,
  newId,
  Prisma,
  readMigrations,
  resolveMigrationsDir,
} from "../src/index.js";

/** Opens a fresh, unmigrated database and says how to dispose of it. */
export type OpenFreshDatabase = () => Promise<{ db: Database; dispose(): Promise<void> }>;

const committed = readMigrations(resolveMigrationsDir()).map((m) => m.name);

/** Registers the contract tests in the current describe() block. */
export function databaseContract(openFresh: OpenFreshDatabase): void {
  let db: Database;
  let dispose: () => Promise<void>;

  before(async () => {
    ({ db, dispose } = await openFresh());
  });
  after(async () => {
    await dispose?.();
  });

  it("applies the committed migrations (init first), then is a no-op", async (t) => {
    assert.ok(committed[0]?.endsWith("_init"), `first migration should be *_init, got ${committed[0]}`);
    const startedAt = performance.now();
    const first = await db.migrate();
    t.diagnostic(`${db.kind} migrate from empty: ${Math.round(performance.now() - startedAt)} ms`);
    assert.deepEqual(first, { applied: committed, alreadyApplied: 0 });
    assert.deepEqual(await db.migrate(), { applied: [], alreadyApplied: committed.length });
  });

  it("rejects a recorded migration whose checksum differs, naming it", async () => {
    const name = committed[0]!;
    const [row] = await db.prisma.$queryRaw<{ checksum: string }[]>`
      SELECT checksum FROM _gw_migrations WHERE name = ${name}`;
    await db.prisma.$executeRaw`UPDATE _gw_migrations SET checksum = ${"0".repeat(64)} WHERE name = ${name}`;
    try {
      await assert.rejects(db.migrate(), (err: unknown) => {
        assert.ok(err instanceof MigrationChecksumError);
        assert.equal(err.migrationName, name);
        assert.match(err.message, new RegExp(name));
        return true;
      });
    } finally {
      await db.prisma.$executeRaw`UPDATE _gw_migrations SET checksum = ${row!.checksum} WHERE name = ${name}`;
    }
    assert.deepEqual(await db.migrate(), { applied: [], alreadyApplied: committed.length });
  });

  it("round-trips Project, Model, ProjectModel and ProjectToken (CRUD, cascade)", async () => {
    const projectId = newId("proj");
    const tokenId = newId("tok");
    await db.prisma.model.createMany({
      data: [
        { id: "gpt-test", provider: "openai" },
        { id: "claude-test", provider: "anthropic", upstreamModel: "claude-x" },
      ],
    });
    await db.prisma.project.create({
      data: {
        id: projectId,
        name: "Contract",
        slug: `contract-${projectId.slice(-6).toLowerCase()}`,
        tokens: { create: { id: tokenId, name: "ci", tokenHash: "ab".repeat(32), prefix: "sk-rt-abcd" } },
        models: {
          create: [
            { modelId: "claude-test", position: 1 },
            { modelId: "gpt-test", position: 0 },
          ],
        },
      },
    });

    const loaded = await db.prisma.project.findUniqueOrThrow({
      where: { id: projectId },
      include: { models: { orderBy: { position: "asc" }, include: { model: true } }, tokens: true },
    });
    assert.deepEqual(
      loaded.models.map((pm) => pm.model.id),
      ["gpt-test", "claude-test"],
    );
    assert.equal(loaded.tokens[0]?.id, tokenId);
    assert.deepEqual(loaded.tokens[0]?.limits, []);
    assert.deepEqual(loaded.budgets, []);

    const renamed = await db.prisma.project.update({ where: { id: projectId }, data: { name: "Renamed" } });
    assert.equal(renamed.name, "Renamed");
    assert.ok(renamed.updatedAt >= loaded.updatedAt);
    const revokedAt = new Date("2025-01-02T03:04:05.678Z");
    await db.prisma.projectToken.update({ where: { id: tokenId }, data: { revokedAt } });
    const token = await db.prisma.projectToken.findUniqueOrThrow({ where: { tokenHash: "ab".repeat(32) } });
    assert.equal(token.revokedAt?.toISOString(), revokedAt.toISOString());

    await db.prisma.project.delete({ where: { id: projectId } });
    assert.equal(await db.prisma.projectToken.count({ where: { projectId } }), 0);
    assert.equal(await db.prisma.projectModel.count({ where: { projectId } }), 0);
    assert.equal(await db.prisma.model.count({ where: { id: { in: ["gpt-test", "claude-test"] } } }), 2);
  });

  it("createMany({ skipDuplicates }) stores a UsageRecord once for a repeated id", async () => {
    const record = usageRecord(newId("msg"));
    const first = await db.prisma.usageRecord.createMany({ data: [record, record], skipDuplicates: true });
    assert.equal(first.count, 1);
    const redelivered = await db.prisma.usageRecord.createMany({ data: [record], skipDuplicates: true });
    assert.equal(redelivered.count, 0);
    assert.equal(await db.prisma.usageRecord.count({ where: { id: record.id } }), 1);
  });

  it("round-trips BigInt costMicros and Decimal(24,12) prices exactly", async () => {
    const id = newId("msg");
    const costMicros = 9_007_199_254_740_993n; // 2^53 + 1: not representable as a JS number
    await db.prisma.usageRecord.create({ data: { ...usageRecord(id), costMicros } });
    const stored = await db.prisma.usageRecord.findUniqueOrThrow({ where: { id } });
    assert.equal(stored.costMicros, costMicros);

    const inputPrice = new Prisma.Decimal("123456789012.123456789012"); // all 24 digits significant
    const outputPrice = new Prisma.Decimal("0.000000000001");
    await db.prisma.model.create({ data: { id: "priced", provider: "custom", inputPrice, outputPrice } });
    const model = await db.prisma.model.findUniqueOrThrow({ where: { id: "priced" } });
    assert.equal(model.inputPrice?.toFixed(12), "123456789012.123456789012");
    assert.ok(model.outputPrice?.equals(outputPrice));
    assert.equal(model.cachePrice, null, "an absent price stays null, never 0");
  });

  it("round-trips String[] and Json fields", async () => {
    const policies = ["a,b", 'quote"d', "", "ünïcode", "{braces}", "NULL"];
    const budgets = [{ metric: "cost", limit: 1.5, window: null, nested: { list: [1, "two", true] } }];
    const id = newId("proj");
    await db.prisma.project.create({
      data: {
        id,
        name: "json",
        slug: id.toLowerCase(),
        policies,
        budgets,
        routing: { llm: { modelId: "m" } },
      },
    });
    const project = await db.prisma.project.findUniqueOrThrow({ where: { id } });
    assert.deepEqual(project.policies, policies);
    assert.deepEqual(project.budgets, budgets);
    assert.deepEqual(project.routing, { llm: { modelId: "m" } });
    assert.equal(project.guardrails, null);

    const usage = await db.prisma.usageRecord.create({
      data: { ...usageRecord(newId("msg")), piiRedacted: ["email", "phone"], tags: { team: "a" } },
    });
    assert.deepEqual(usage.piiRedacted, ["email", "phone"]);
    assert.deepEqual(usage.tags, { team: "a" });
  });
}

/** A minimal valid UsageRecord. */
function usageRecord(id: string) {
  return {
    id,
    timestamp: new Date("2025-06-01T12:00:00.000Z"),
    projectId: "proj_contract",
    projectSlug: "contract",
    outcome: "success",
    traceId: `trace-${id}`,
  };
}
