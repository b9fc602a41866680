import { budgetCounter } from "@gw/budgets";
import { toBudgets } from "@gw/config-store";
import type { CounterStore, ReadEntry } from "@gw/counters";
import type { PrismaClient } from "@gw/db";

/**
 * `service_budget_used_ratio` per project: the highest current/limit over the project's own
 * budgets, clamped to [0, 1]. Current usage is read from the budget counters themselves (the keys
 * of libs/budgets, the ones the budget service reserves on), in one read, so the ratio is what
 * admission sees, reservations in flight included. Projects without budgets have no ratio.
 */
export async function readBudgetRatios(
  counters: CounterStore,
  prisma: PrismaClient,
  now: number,
): Promise<Map<string, number>> {
  const projects = await prisma.project.findMany({ select: { id: true, slug: true, budgets: true } });
  const reads: ReadEntry[] = [];
  const owners: { slug: string; limit: number }[] = [];
  for (const project of projects) {
    for (const budget of toBudgets(project.budgets)) {
      const counter = budgetCounter(
        { level: "project", scopeId: project.id, name: project.slug, budget, enforced: true },
        now,
      );
      reads.push({ key: counter.key, ...(counter.sliding ? { sliding: counter.sliding } : {}) });
      owners.push({ slug: project.slug, limit: counter.limit });
    }
  }
  const ratios = new Map<string, number>();
  if (reads.length === 0) return ratios;
  const values = await counters.read(reads, { nowMs: now });
  owners.forEach(({ slug, limit }, index) => {
    const ratio = usedRatio(values[index] ?? 0, limit);
    ratios.set(slug, Math.max(ratios.get(slug) ?? 0, ratio));
  });
  return ratios;
}

/** A limit of 0 allows nothing: it reads as exhausted (1). */
export function usedRatio(current: number, limit: number): number {
  if (limit <= 0) return 1;
  return Math.min(1, Math.max(0, current / limit));
}
