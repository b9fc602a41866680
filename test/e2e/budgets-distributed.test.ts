import { after, before, describe, it } from "node:test";
import { type Bus, createBus } from "@gw/bus";
import { type FakeUpstream, startFakeUpstream } from "@gw/testing";
import * as budgets from "../support/budget-checks.js";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";
import { recordEvents } from "../support/event-recorder.js";

const env = distributedEnv();

// Budgets end to end in distributed mode with two replicas of ingress, routing and budget
// (ingress i -> budget i), one Redis: admission stays exact across budget replicas.
describe("budgets, distributed mode, two replicas", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let upstream: FakeUpstream;
  let services: DistributedGateway;
  let bus: Bus;
  let stopEvents: () => Promise<void>;
  let gateway: budgets.BudgetGateway;

  before(async () => {
    upstream = await startFakeUpstream();
    services = await startDistributedGateway(async () => {}, { replicas: 2 });
    bus = await createBus({ natsUrl: env.NATS_URL!, namespace: services.busNamespace, name: "budget-test" });
    const recorder = await recordEvents(bus, "events.budget.>");
    stopEvents = recorder.stop;
    gateway = {
      urls: services.urls,
      prisma: services.db.prisma,
      secretKey: services.secretKey,
      upstream,
      events: recorder.events,
    };
  });

  after(async () => {
    await stopEvents?.();
    await bus?.close();
    await services?.stop();
    await upstream?.close();
  });

  it("200 concurrent requests over two replicas against a calls budget of 50 admit exactly 50, 20 rounds", () =>
    budgets.checkConcurrentCallsBudget(gateway, 20));
  it("a model over its own limit is skipped by routing: the next candidate serves", () =>
    budgets.checkModelLimitSkipsTheModel(gateway));
  it("a spend-group parent's limit binds a project two levels down", () =>
    budgets.checkSpendGroupChain(gateway));
});
