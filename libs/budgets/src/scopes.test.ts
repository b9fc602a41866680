import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  BudgetConfig,
  ModelConfig,
  ProjectConfig,
  SpendGroupConfig,
  TokenConfig,
  TokenLimitConfig,
} from "@gw/config-store";
import { projectConfig, tokenConfig } from "@gw/testing";
import { budgetCounter, limitUnits } from "./counter-entries.js";
import { collectScopes, groupChain } from "./scopes.js";

const budget = (overrides: Partial<BudgetConfig> = {}): BudgetConfig =>
  ({
    metric: "calls",
    limit: 10,
    windowType: "period",
    windowSize: "monthly",
    onExhausted: "block",
    warnAt: 80,
    ...overrides,
  }) as BudgetConfig;

const project = (overrides: Partial<ProjectConfig> = {}): ProjectConfig =>
  projectConfig({ id: "proj_a", slug: "a", ...overrides });

const token = (limits: TokenLimitConfig[] = []): TokenConfig =>
  tokenConfig({ id: "tok_a", projectId: "proj_a", name: "ci", limits });

const group = (id: string, overrides: Partial<SpendGroupConfig> = {}): SpendGroupConfig => ({
  id,
  name: id,
  limits: [budget({ limit: 100 })],
  projectIds: [],
  tokenIds: [],
  parentGroupId: null,
  ...overrides,
});

const model = { id: "gpt", limits: [budget({ limit: 5 })] } as unknown as ModelConfig;

describe("collectScopes", () => {
  it("orders token, project, groups, model; the model last so only its own refusal lets another candidate try", () => {
    const scopes = collectScopes({
      project: project({ budgets: [budget()], spendGroupId: "team" }),
      token: token([{ ...budget({ limit: 3 }), mode: "extend" }]),
      model,
      groups: [group("team", { parentGroupId: "org" }), group("org")],
    });
    assert.deepEqual(
      scopes.map((s) => `${s.level}:${s.scopeId}:${s.enforced}`),
      ["token:tok_a:true", "project:proj_a:true", "group:team:true", "group:org:true", "model:gpt:true"],
    );
  });

  it("override makes the project budget of the same metric and window count-only, and leaves the others", () => {
    const scopes = collectScopes({
      project: project({ budgets: [budget(), budget({ windowSize: "daily" }), budget({ metric: "cost" })] }),
      token: token([{ ...budget({ limit: 1000 }), mode: "override" }]),
      model: null,
      groups: [],
    });
    const project_ = scopes.filter((s) => s.level === "project");
    assert.deepEqual(
      project_.map((s) => `${s.budget.metric}:${s.budget.windowSize}:${s.enforced}`),
      ["calls:monthly:false", "calls:daily:true", "cost:monthly:true"],
    );
  });

  it("extend keeps every project budget enforced", () => {
    const scopes = collectScopes({
      project: project({ budgets: [budget()] }),
      token: token([{ ...budget({ limit: 1000 }), mode: "extend" }]),
      model: null,
      groups: [],
    });
    assert.ok(scopes.every((s) => s.enforced));
  });

  it("merges two budgets of one scope on the same metric and window into one counter, the stricter limit", () => {
    const scopes = collectScopes({
      project: project({ budgets: [budget({ limit: 10 }), budget({ limit: 4 })] }),
      token: null,
      model: null,
      groups: [],
    });
    assert.equal(scopes.length, 1);
    assert.equal(scopes[0]!.budget.limit, 4);
  });
});

describe("groupChain", () => {
  it("takes the project's group, groups listing the project or the token, and all their ancestors once", () => {
    const groups = [
      group("org"),
      group("team", { parentGroupId: "org" }),
      group("keys", { tokenIds: ["tok_a"], parentGroupId: "team" }),
      group("other", { projectIds: ["proj_b"] }),
      group("listing", { projectIds: ["proj_a"] }),
    ];
    const chain = groupChain(project({ spendGroupId: "team" }), token(), groups);
    assert.deepEqual(
      chain.map((g) => g.id),
      ["team", "org", "keys", "listing"],
    );
  });

  it("stops at a cycle instead of looping", () => {
    const groups = [group("a", { parentGroupId: "b" }), group("b", { parentGroupId: "a" })];
    assert.deepEqual(
      groupChain(project({ spendGroupId: "a" }), null, groups).map((g) => g.id),
      ["a", "b"],
    );
  });
});

describe("budgetCounter", () => {
  it("keys period windows by their start and rolling windows by one sliding key", () => {
    const now = Date.parse("2026-11-24T10:00:00Z");
    const scope = { level: "project" as const, scopeId: "proj_a", name: "a", enforced: true };
    const period = budgetCounter({ ...scope, budget: budget({ windowSize: "daily" }) }, now);
    assert.equal(period.key, "budget:project:proj_a:calls:period:daily:2026-11-24T00:00:00.000Z");
    assert.equal(period.windowEndsAt, Date.parse("2026-11-25T00:00:00Z"));
    assert.ok(period.ttlMs > 14 * 3_600_000);
    const rolling = budgetCounter(
      { ...scope, budget: budget({ windowType: "rolling", windowSize: "hour" } as Partial<BudgetConfig>) },
      now,
    );
    assert.equal(rolling.key, "budget:project:proj_a:calls:rolling:hour");
    assert.deepEqual(rolling.sliding, { bucketMs: 60_000, buckets: 61 });
  });

  it("counts money in micro-USD, rounding a limit down", () => {
    assert.equal(limitUnits(budget({ metric: "cost", limit: 0.0000015 })), 1);
    assert.equal(limitUnits(budget({ metric: "cost", limit: 12.5 })), 12_500_000);
    assert.equal(limitUnits(budget({ limit: 7.9 })), 7);
  });
});
