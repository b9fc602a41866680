import type { GroupUsageResponse } from "@gw/proto";
import { storedLimits } from "./limits.js";

/** A `spend_groups` row as Prisma returns it. */
export interface SpendGroupRow {
  id: string;
  name: string;
  limits: unknown;
  projectIds: string[];
  tokenIds: string[];
  parentGroupId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface LimitUsageView {
  metric: string;
  windowType: string;
  period: string;
  limit: number;
  current: number;
  remaining: number;
}

/** A spend group as the API shows it; the list adds `usage`. */
export function spendGroupView(row: SpendGroupRow) {
  return {
    id: row.id,
    name: row.name,
    limits: storedLimits(row.limits),
    projectIds: row.projectIds,
    tokenIds: row.tokenIds,
    parentGroupId: row.parentGroupId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The budget service's figures per group, in the API's names (`period` rather than the proto's
 * `windowSize`, as in the group's limits). A group the budget service did not answer for (its
 * config cache has not seen it yet) gets `null`: unknown, rather than a made-up zero.
 */
export function usageByGroup(response: GroupUsageResponse): Map<string, LimitUsageView[]> {
  return new Map(
    response.groups.map((group) => [
      group.groupId,
      group.usage.map((entry) => ({
        metric: entry.metric,
        windowType: entry.windowType,
        period: entry.windowSize,
        limit: entry.limit,
        current: entry.current,
        remaining: entry.remaining,
      })),
    ]),
  );
}
