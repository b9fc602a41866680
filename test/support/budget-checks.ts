import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@gw/db";
import { newId } from "@gw/db";
import { seedProject } from "@gw/service-standalone";
import { type FakeUpstream, type RecordedRequest, waitFor } from "@gw/testing";
import type { RecordedEvent } from "./event-recorder.js";

/**
 * Budgets end to end, through real HTTP: exact admission under concurrency with the 503 envelope
 * and the `budget_exceeded` usage outcome, a model over its own limit skipped by routing, a
 * spend-group chain, and the events on the bus. Written once, run in both modes; with several
 * ingress URLs (distributed: each its own budget replica) the load is spread over all of them.
 */
export interface BudgetGateway {
  urls: string[];
  prisma: PrismaClient;
  secretKey: Buffer;
  upstream: FakeUpstream;
  events: RecordedEvent[];
}

const calls = (budget: { limit: number; windowType?: string; windowSize?: string }) => ({
  metric: "calls",
  windowType: "period",
  windowSize: "monthly",
  onExhausted: "block",
  ...budget,
});

async function seed(gateway: BudgetGateway, budgets: object[] = []) {
  const slug = `budget-${randomUUID().slice(0, 8)}`;
  const seeded = await seedProject(gateway.prisma, gateway.secretKey, {
    projectSlug: slug,
    modelId: `${slug}-a`,
    provider: "openai",
    baseUrl: gateway.upstream.baseUrl,
    upstreamModel: `${slug}-a-up`,
    apiKey: "sk-a",
    budgets,
  });
  return { ...seeded, slug };
}

/** A plain chat completion over fetch (200 concurrent SDK clients would measure the SDK, not us). */
async function chat(url: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "any", messages: [{ role: "user", content: "count me" }], max_tokens: 16 }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const upstreamModelOf = (request: RecordedRequest) =>
  (request.body as { model?: string } | undefined)?.model ?? "";

export async function checkConcurrentCallsBudget(gateway: BudgetGateway, rounds: number): Promise<void> {
  const admittedPerRound: number[] = [];
  const projects: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const project = await seed(gateway, [calls({ limit: 50 })]);
    projects.push(project.projectId);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => chat(gateway.urls[i % gateway.urls.length]!, project.token)),
    );
    admittedPerRound.push(answers.filter((a) => a.status === 200).length);
    const refused = answers.filter((a) => a.status !== 200);
    for (const answer of refused) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      const error = answer.body.error as { type: string; code: string; message: string };
      assert.equal(error.type, "budget_exceeded", error.message);
      assert.equal(error.code, "budget_exceeded");
      assert.match(error.message, new RegExp(`project:${project.slug} \\(calls, monthly limit 50\\)`));
    }
    const reachedUpstream = gateway.upstream.requests.filter(
      (r) => upstreamModelOf(r) === `${project.slug}-a-up`,
    );
    assert.equal(reachedUpstream.length, 50, "only admitted calls reach the upstream");
  }
  assert.deepEqual(admittedPerRound, Array(rounds).fill(50), "exactly 50 admitted in every round");
  // Every call is recorded, none lost: per round 150 refusals (budget_exceeded, 503) and 50 successes.
  const count = (where: object) =>
    gateway.prisma.usageRecord.count({ where: { projectId: { in: projects }, ...where } });
  await waitFor(
    async () =>
      ((await count({ outcome: "budget_exceeded", status: 503 })) === 150 * rounds &&
        (await count({ outcome: "success" })) === 50 * rounds) ||
      undefined,
    { timeoutMs: 60_000, intervalMs: 200, what: `${200 * rounds} usage records` },
  );
  assert.equal(await count({}), 200 * rounds, "no other record");
  await waitFor(
    () => gateway.events.find((e) => e.event === "budget.exhausted" && e.projectId === projects[0]),
    { timeoutMs: 10_000, what: "budget.exhausted" },
  );
}

/** Model A has a limit of one call per rolling hour: the second request is routed to B, not refused. */
export async function checkModelLimitSkipsTheModel(gateway: BudgetGateway): Promise<void> {
  const project = await seed(gateway);
  await gateway.prisma.model.update({
    where: { id: `${project.slug}-a` },
    data: { limits: [calls({ limit: 1, windowType: "rolling", windowSize: "hour" })] },
  });
  await seedProject(gateway.prisma, gateway.secretKey, {
    projectSlug: project.slug,
    modelId: `${project.slug}-b`,
    provider: "openai",
    baseUrl: gateway.upstream.baseUrl,
    upstreamModel: `${project.slug}-b-up`,
    apiKey: "sk-b",
  });
  const before = gateway.upstream.requests.length;
  const url = gateway.urls[0]!;
  assert.equal((await chat(url, project.token)).status, 200);
  assert.equal((await chat(url, project.token)).status, 200);
  assert.equal((await chat(url, project.token)).status, 200);
  assert.deepEqual(gateway.upstream.requests.slice(before).map(upstreamModelOf), [
    `${project.slug}-a-up`,
    `${project.slug}-b-up`,
    `${project.slug}-b-up`,
  ]);
  const row = await waitFor(
    () =>
      gateway.prisma.usageRecord
        .findFirst({ where: { projectId: project.projectId, modelId: `${project.slug}-b` } })
        .then((r) => r ?? undefined),
    { timeoutMs: 15_000, what: "B's usage row" },
  );
  const excluded = (row.trace as { stage: string; name: string; modelId?: string; outcome: string }[]).find(
    (t) => t.name === "budget" && t.modelId === `${project.slug}-a` && t.outcome === "excluded",
  );
  assert.ok(excluded, "the trace says A was excluded by its budget");
}

/** A parent group's limit binds a project two levels down; the refusal names the group. */
export async function checkSpendGroupChain(gateway: BudgetGateway): Promise<void> {
  const project = await seed(gateway);
  const org = await gateway.prisma.spendGroup.create({
    data: {
      id: newId("sg"),
      name: `org-${project.slug}`,
      limits: [{ metric: "calls", windowType: "period", period: "daily", value: 2 }],
    },
  });
  const team = await gateway.prisma.spendGroup.create({
    data: {
      id: newId("sg"),
      name: `team-${project.slug}`,
      limits: [{ metric: "calls", windowType: "period", period: "daily", value: 10 }],
      projectIds: [project.projectId],
      parentGroupId: org.id,
    },
  });
  void team;
  // Spend groups are cached as one list for the config TTL (5 s; change events come with the
  // management API): let it lapse so the first request already sees the chain.
  await new Promise((resolve) => setTimeout(resolve, 5_200));
  const url = gateway.urls[0]!;
  const statuses: number[] = [];
  let refusal: Record<string, unknown> = {};
  for (let i = 0; i < 4; i++) {
    const answer = await chat(url, project.token);
    statuses.push(answer.status);
    if (answer.status !== 200) refusal = answer.body;
  }
  assert.deepEqual(statuses, [200, 200, 503, 503]);
  const error = refusal.error as { code: string; message: string };
  assert.equal(error.code, "budget_exceeded");
  assert.match(error.message, new RegExp(`group:org-${project.slug} \\(calls, daily limit 2\\)`));
  assert.equal(
    gateway.upstream.requests.filter((r) => upstreamModelOf(r) === `${project.slug}-a-up`).length,
    2,
    "the chain admitted exactly its limit",
  );
}
