import { AdminErrors } from "../errors.js";
import { describeLimit, limitKey, type SpendGroupLimit } from "./limits.js";

/** What the cascade rules look at: one group, as it would be after the write being checked. */
export interface GroupNode {
  id: string;
  name: string;
  parentGroupId: string | null;
  limits: SpendGroupLimit[];
}

const label = (group: GroupNode) => `"${group.name}" (${group.id})`;

/**
 * The ancestors of `group`, parent first. A group met twice means the write would close a loop
 * (the group under one of its own descendants): refused, since every request through the group
 * would then climb forever.
 */
export function ancestorsOf(group: GroupNode, byId: Map<string, GroupNode>): GroupNode[] {
  const chain: GroupNode[] = [];
  const seen = new Set([group.id]);
  let parentId = group.parentGroupId;
  while (parentId) {
    if (seen.has(parentId)) {
      if (parentId === group.id)
        throw AdminErrors.invalid(
          `parentGroupId: the group ${label(group)} would become its own ancestor.`,
          "spend_group_cycle",
        );
      // A loop above us that we did not make (a hand-edited row): stop climbing, it is not ours.
      break;
    }
    const parent = byId.get(parentId);
    if (!parent) break;
    seen.add(parentId);
    chain.push(parent);
    parentId = parent.parentGroupId;
  }
  return chain;
}

/** Every group below `group`, at any depth (loops in stored rows are ignored). */
export function descendantsOf(group: GroupNode, byId: Map<string, GroupNode>): GroupNode[] {
  const found: GroupNode[] = [];
  const seen = new Set([group.id]);
  const queue = [group.id];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const candidate of byId.values()) {
      if (candidate.parentGroupId !== id || seen.has(candidate.id)) continue;
      seen.add(candidate.id);
      found.push(candidate);
      queue.push(candidate.id);
    }
  }
  return found;
}

function matching(group: GroupNode, limit: SpendGroupLimit): SpendGroupLimit | undefined {
  const key = limitKey(limit);
  return group.limits.find((candidate) => limitKey(candidate) === key);
}

/**
 * The cascade rule (SPEC "Spend group": a child limit cannot exceed its parent's matching limit),
 * checked for every pair the write touches:
 * - `group`'s limits against the matching limit of every ancestor (not only the parent: a parent
 *   without that limit does not lift the grandparent's);
 * - every descendant's limits against `group` and `group`'s ancestors, so lowering a limit or
 *   moving a subtree under a stricter parent cannot leave a child above its new bound.
 * `byId` holds every group with `group` as it would be after the write.
 */
export function assertCascade(group: GroupNode, byId: Map<string, GroupNode>): void {
  const ancestors = ancestorsOf(group, byId);
  group.limits.forEach((limit, index) => {
    for (const ancestor of ancestors) {
      const bound = matching(ancestor, limit);
      if (bound && limit.value > bound.value)
        throw AdminErrors.invalid(
          `limits[${index}]: ${limit.value} exceeds the ${describeLimit(bound)} of ${bound.value} of ` +
            `${ancestor.id === group.parentGroupId ? "the parent" : "the ancestor"} group ${label(ancestor)}.`,
          "spend_group_limit_above_parent",
        );
    }
  });
  const bounds = [group, ...ancestors];
  for (const child of descendantsOf(group, byId)) {
    for (const limit of child.limits) {
      for (const bound of bounds) {
        const over = matching(bound, limit);
        if (over && limit.value > over.value)
          throw AdminErrors.invalid(
            `limits: the child group ${label(child)} has a ${describeLimit(limit)} of ${limit.value}, ` +
              `above the ${over.value} of ${label(bound)}; lower the child first.`,
            "spend_group_limit_below_child",
          );
      }
    }
  }
}
