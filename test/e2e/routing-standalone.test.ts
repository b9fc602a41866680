import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, startStandalone } from "@gw/service-standalone";
import { startFakeUpstream } from "@gw/testing";
import { recordEvents } from "../support/event-recorder.js";
import * as routing from "../support/routing-checks.js";
import { testServiceContext } from "../support/silent-context.js";

// Routing end to end in standalone mode: fallbacks, 429 cooldowns, no candidates, cheapest.
describe("routing, standalone mode", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-routing-standalone-"));
  const context = testServiceContext("standalone");
  let gateway: routing.RoutingGateway;
  let stopEvents: () => Promise<void>;

  before(async () => {
    const upstream = await startFakeUpstream();
    const config = readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" });
    const handle = await startStandalone(config, context);
    const recorder = await recordEvents(handle.bus);
    stopEvents = recorder.stop;
    gateway = {
      url: handle.url,
      prisma: handle.db.prisma,
      secretKey: handle.secretKey,
      upstream,
      events: recorder.events,
    };
  });

  after(async () => {
    await stopEvents?.();
    await context.shutdown.run("test done");
    await gateway?.upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("falls back to B when A answers 500, and says so (routing.fallback_used, provider.error)", () =>
    routing.checkFallbackOn500(gateway));
  it("keeps A out for its Retry-After after a 429", () => routing.checkRateLimitCooldown(gateway));
  it("answers 503 no_candidates when every model is filtered out", () => routing.checkNoCandidates(gateway));
  it("cheapest picks the cheaper model for the request", () => routing.checkCheapest(gateway));
  it("llm routes by the routing model's answer and records its call", () => routing.checkLlmPolicy(gateway));
  it("llm falls back to the other policies when the routing model fails", () =>
    routing.checkLlmPolicySurvivesFailure(gateway));
  it("the routing model's call counts against the project's budget", () =>
    routing.checkRoutingModelCallIsBudgeted(gateway));
});
