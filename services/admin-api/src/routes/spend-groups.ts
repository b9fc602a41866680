import { newId, type Prisma } from "@gw/db";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { assertCascade, type GroupNode } from "../spend-groups/hierarchy.js";
import { limitList, storedLimits } from "../spend-groups/limits.js";
import { type LimitUsageView, spendGroupView, usageByGroup } from "../spend-groups/view.js";
import { parseWith } from "../validate.js";

/**
 * Serialises spend-group writes across replicas: the cascade checks read the whole tree, so two
 * writes checked against the same old tree could together break it (a loop, a child above its parent).
 */
const SPEND_GROUP_LOCK = 727_002;

const idList = z.array(z.string().trim().min(1, "must not be empty")).max(1000);
const fields = {
  limits: limitList.optional(),
  projectIds: idList.optional(),
  tokenIds: idList.optional(),
  parentGroupId: z.string().trim().min(1, "must not be empty").nullable().optional(),
};
const name = z.string().trim().min(1, "is required").max(200, "must be at most 200 characters");
const createGroup = z.strictObject({ name, ...fields });
const updateGroup = z.strictObject({ name: name.optional(), ...fields });

type Tx = Prisma.TransactionClient;

/** `/api/spend-groups` (SPEC "Spend groups", budgets in docs/BUDGETS.md). */
export function registerSpendGroupRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  /** Referenced projects and tokens exist; each id once, in the order given. */
  async function assertReferences(body: { projectIds?: string[]; tokenIds?: string[] }) {
    const projectIds = body.projectIds && [...new Set(body.projectIds)];
    const tokenIds = body.tokenIds && [...new Set(body.tokenIds)];
    if (projectIds?.length) {
      const found = await prisma.project.findMany({
        where: { id: { in: projectIds } },
        select: { id: true },
      });
      const missing = projectIds.filter((id) => !found.some((p) => p.id === id));
      if (missing.length > 0)
        throw AdminErrors.invalid(`projectIds: no project has the id ${missing.join(", ")}.`);
    }
    if (tokenIds?.length) {
      const found = await prisma.projectToken.findMany({
        where: { id: { in: tokenIds } },
        select: { id: true },
      });
      const missing = tokenIds.filter((id) => !found.some((t) => t.id === id));
      if (missing.length > 0)
        throw AdminErrors.invalid(`tokenIds: no token has the id ${missing.join(", ")}.`);
    }
    return { projectIds, tokenIds };
  }

  /** Every group, as cascade nodes, under the write lock. */
  async function lockedTree(tx: Tx): Promise<Map<string, GroupNode>> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SPEND_GROUP_LOCK})`;
    const rows = await tx.spendGroup.findMany();
    return new Map(
      rows.map((row) => [
        row.id,
        { id: row.id, name: row.name, parentGroupId: row.parentGroupId, limits: storedLimits(row.limits) },
      ]),
    );
  }

  function assertParent(tree: Map<string, GroupNode>, groupId: string, parentGroupId: string | null) {
    if (!parentGroupId) return;
    if (parentGroupId === groupId)
      throw AdminErrors.invalid("parentGroupId: a group cannot be its own parent.", "spend_group_cycle");
    if (!tree.has(parentGroupId))
      throw AdminErrors.invalid(`parentGroupId: no spend group has the id ${parentGroupId}.`);
  }

  api.get("/spend-groups", { config: { permission: "report:read" } }, async (request) => {
    const rows = await prisma.spendGroup.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    let usage: Map<string, LimitUsageView[]> | null = null;
    try {
      usage = usageByGroup(await deps.budget.groupUsage({ groupIds: [] }));
    } catch (error) {
      // The groups are still worth listing without their figures (the counter store may be down).
      request.log.warn({ err: error }, "spend groups: budget service usage unavailable");
    }
    return {
      spendGroups: rows.map((row) => ({ ...spendGroupView(row), usage: usage?.get(row.id) ?? null })),
    };
  });

  api.post(
    "/spend-groups",
    { config: { body: createGroup, permission: "project:write", action: "spend_group:create" } },
    async (request, reply) => {
      const body = parseWith(createGroup, request.body);
      const { projectIds = [], tokenIds = [] } = await assertReferences(body);
      const id = newId("sg");
      const limits = body.limits ?? [];
      const parentGroupId = body.parentGroupId ?? null;
      const created = await prisma.$transaction(async (tx) => {
        const tree = await lockedTree(tx);
        assertParent(tree, id, parentGroupId);
        const node = { id, name: body.name, parentGroupId, limits };
        tree.set(id, node);
        assertCascade(node, tree);
        return tx.spendGroup.create({
          data: { id, name: body.name, limits, projectIds, tokenIds, parentGroupId },
        });
      });
      request.auditDetails = { spendGroupId: id, name: body.name, parentGroupId };
      publishConfigChange(deps, "spend_group", id, "created");
      return reply.code(201).send(spendGroupView(created));
    },
  );

  api.put<{ Params: { id: string } }>(
    "/spend-groups/:id",
    { config: { body: updateGroup, permission: "project:write", action: "spend_group:update" } },
    async (request) => {
      const { id } = request.params;
      const body = parseWith(updateGroup, request.body);
      const references = await assertReferences(body);
      const updated = await prisma.$transaction(async (tx) => {
        const tree = await lockedTree(tx);
        const current = tree.get(id);
        if (!current) throw AdminErrors.notFound("The spend group");
        const parentGroupId = body.parentGroupId === undefined ? current.parentGroupId : body.parentGroupId;
        assertParent(tree, id, parentGroupId);
        const node = {
          id,
          name: body.name ?? current.name,
          parentGroupId,
          limits: body.limits ?? current.limits,
        };
        tree.set(id, node);
        assertCascade(node, tree);
        return tx.spendGroup.update({
          where: { id },
          data: {
            name: node.name,
            parentGroupId,
            ...(body.limits ? { limits: body.limits } : {}),
            ...(references.projectIds ? { projectIds: references.projectIds } : {}),
            ...(references.tokenIds ? { tokenIds: references.tokenIds } : {}),
          },
        });
      });
      request.auditDetails = { spendGroupId: id, changed: Object.keys(body) };
      publishConfigChange(deps, "spend_group", id, "updated");
      return spendGroupView(updated);
    },
  );

  api.delete<{ Params: { id: string } }>(
    "/spend-groups/:id",
    { config: { permission: "project:write", action: "spend_group:delete" } },
    async (request, reply) => {
      const { id } = request.params;
      await prisma.$transaction(async (tx) => {
        const tree = await lockedTree(tx);
        const group = tree.get(id);
        if (!group) throw AdminErrors.notFound("The spend group");
        const children = [...tree.values()].filter((g) => g.parentGroupId === id);
        if (children.length > 0)
          throw AdminErrors.conflict(
            `The spend group still has ${children.length} child group(s) (${children
              .map((c) => c.id)
              .join(", ")}): delete or move them first.`,
          );
        request.auditDetails = { spendGroupId: id, name: group.name };
        // A project naming this group as its own would point at nothing: it simply leaves the group.
        await tx.project.updateMany({ where: { spendGroupId: id }, data: { spendGroupId: null } });
        await tx.spendGroup.delete({ where: { id } });
      });
      publishConfigChange(deps, "spend_group", id, "deleted");
      return reply.code(204).send();
    },
  );
}
