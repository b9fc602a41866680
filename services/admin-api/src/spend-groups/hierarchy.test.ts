import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AdminError } from "../errors.js";
import { ancestorsOf, assertCascade, descendantsOf, type GroupNode } from "./hierarchy.js";
import type { SpendGroupLimit } from "./limits.js";

const cost = (value: number): SpendGroupLimit => ({
  metric: "cost",
  windowType: "period",
  period: "monthly",
  value,
});
const group = (id: string, parentGroupId: string | null, limits: SpendGroupLimit[] = []): GroupNode => ({
  id,
  name: id,
  parentGroupId,
  limits,
});
const tree = (...groups: GroupNode[]) => new Map(groups.map((g) => [g.id, g]));
const refusal = (fn: () => void, code: string) =>
  assert.throws(fn, (error) => error instanceof AdminError && error.status === 400 && error.code === code);

describe("spend-group cascade", () => {
  const org = group("org", null, [cost(100)]);
  const team = group("team", "org");
  const key = group("key", "team", [cost(10)]);

  it("walks ancestors and descendants, stopping at loops it did not make", () => {
    const groups = tree(org, team, key);
    assert.deepEqual(
      ancestorsOf(key, groups).map((g) => g.id),
      ["team", "org"],
    );
    assert.deepEqual(
      descendantsOf(org, groups).map((g) => g.id),
      ["team", "key"],
    );
    const a = group("a", "b");
    const b = group("b", "a");
    const c = group("c", "a");
    assert.deepEqual(
      ancestorsOf(c, tree(a, b, c)).map((g) => g.id),
      ["a", "b"],
    );
  });

  it("refuses a loop through the group itself", () => {
    const moved = group("org", "key", [cost(100)]);
    refusal(() => assertCascade(moved, tree(moved, team, key)), "spend_group_cycle");
  });

  it("bounds a limit by every ancestor, and every descendant by the group", () => {
    const big = group("key", "team", [cost(150)]);
    refusal(() => assertCascade(big, tree(org, team, big)), "spend_group_limit_above_parent");
    const lowered = group("org", null, [cost(5)]);
    refusal(() => assertCascade(lowered, tree(lowered, team, key)), "spend_group_limit_below_child");
    const strictParent = group("strict", null, [cost(1)]);
    const movedTeam = group("team", "strict");
    refusal(
      () => assertCascade(movedTeam, tree(org, strictParent, movedTeam, key)),
      "spend_group_limit_below_child",
    );
    assertCascade(key, tree(org, team, key));
  });
});
