import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, startStandalone } from "@gw/service-standalone";
import { type FakeUpstream, startFakeUpstream } from "@gw/testing";
import * as budgets from "../support/budget-checks.js";
import { recordEvents } from "../support/event-recorder.js";
import { testServiceContext } from "../support/silent-context.js";

// Budgets end to end in standalone mode (in-process counters), through real HTTP.
describe("budgets, standalone mode", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-budgets-standalone-"));
  const context = testServiceContext("standalone");
  let upstream: FakeUpstream;
  let gateway: budgets.BudgetGateway;
  let stopEvents: () => Promise<void>;

  before(async () => {
    upstream = await startFakeUpstream();
    const config = readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" });
    const handle = await startStandalone(config, context);
    const recorder = await recordEvents(handle.bus, "events.budget.>");
    stopEvents = recorder.stop;
    gateway = {
      urls: [handle.url],
      prisma: handle.db.prisma,
      secretKey: handle.secretKey,
      upstream,
      events: recorder.events,
    };
  });

  after(async () => {
    await stopEvents?.();
    await context.shutdown.run("test done");
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("200 concurrent requests against a calls budget of 50 admit exactly 50, 20 rounds; 150 get the 503 envelope", () =>
    budgets.checkConcurrentCallsBudget(gateway, 20));
  it("a model over its own limit is skipped by routing: the next candidate serves", () =>
    budgets.checkModelLimitSkipsTheModel(gateway));
  it("a spend-group parent's limit binds a project two levels down", () =>
    budgets.checkSpendGroupChain(gateway));
});
