import { publishEvent } from "@gw/accounting";
import type { Model } from "@gw/db";
import type { FastifyInstance } from "fastify";
import { findCatalogModel } from "../catalog/lookup.js";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { createModelBody, rotateKeyBody, updateModelBody } from "../models/model-schemas.js";
import { modelView } from "../models/model-view.js";
import {
  assertBaseUrl,
  createData,
  isUniqueViolation,
  rotateKeyData,
  updateData,
  updateModelRow,
} from "../models/model-writes.js";
import { parseWith } from "../validate.js";

type ById = { Params: { id: string } };

/**
 * `/api/models`: upstream models, their prices, limits and upstream keys. Reads need `model:read`,
 * writes `model:write`. The key is encrypted on the way in and never shown, logged or audited:
 * responses say only `hasApiKey`, audit details only the names of the fields sent.
 */
export function registerModelRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  /** The catalog is a nicety on reads: when it cannot answer, the model is shown without defaults. */
  async function catalogEntry(modelId: string) {
    try {
      return await findCatalogModel(deps, modelId);
    } catch (error) {
      deps.logger.warn({ err: error, modelId }, "catalog lookup failed; model shown without catalogDefaults");
      return null;
    }
  }
  const view = async (row: Model) => modelView(row, await catalogEntry(row.id));

  api.get("/models", { config: { permission: "model:read" } }, async () => {
    const rows = await prisma.model.findMany({ orderBy: { id: "asc" } });
    return { models: await Promise.all(rows.map(view)) };
  });

  api.post(
    "/models",
    { config: { body: createModelBody, permission: "model:write", action: "model:create" } },
    async (request, reply) => {
      const body = parseWith(createModelBody, request.body);
      request.auditDetails = { modelId: body.id, changed: Object.keys(body) };
      assertBaseUrl(body.provider, body.baseUrl ?? null);
      const conflict = () => AdminErrors.conflict(`A model with id "${body.id}" exists.`);
      if (await prisma.model.findUnique({ where: { id: body.id }, select: { id: true } })) throw conflict();
      let row: Model;
      try {
        row = await prisma.model.create({ data: createData(body, deps.secretKey) });
      } catch (error) {
        // Two creates of one id at once: the loser gets the same answer as a later duplicate.
        if (isUniqueViolation(error)) throw conflict();
        throw error;
      }
      publishConfigChange(deps, "model", row.id, "created");
      publishEvent(deps.outbox, {
        event: "config.model_added",
        severity: "info",
        projectId: "",
        details: { modelId: row.id, provider: row.provider },
      });
      return reply.code(201).send(await view(row));
    },
  );

  api.get<ById>("/models/:id", { config: { permission: "model:read" } }, async (request) => {
    const row = await prisma.model.findUnique({ where: { id: request.params.id } });
    if (!row) throw AdminErrors.notFound(`The model "${request.params.id}"`);
    return view(row);
  });

  api.put<ById>(
    "/models/:id",
    { config: { body: updateModelBody, permission: "model:write", action: "model:update" } },
    async (request) => {
      const { id } = request.params;
      const body = parseWith(updateModelBody, request.body);
      request.auditDetails = { modelId: id, changed: Object.keys(body) };
      const row = await updateModelRow(prisma, id, (current) => {
        assertBaseUrl(
          body.provider ?? current.provider,
          body.baseUrl === undefined ? current.baseUrl : body.baseUrl,
        );
        return updateData(current, body, deps.secretKey);
      });
      if (Object.keys(body).length > 0) publishConfigChange(deps, "model", id, "updated");
      return view(row);
    },
  );

  api.post<ById>(
    "/models/:id/apikey",
    { config: { body: rotateKeyBody, permission: "model:write", action: "model:rotate_key" } },
    async (request) => {
      const { id } = request.params;
      const body = parseWith(rotateKeyBody, request.body);
      request.auditDetails = { modelId: id, changed: ["apiKey"] };
      const row = await updateModelRow(prisma, id, () => rotateKeyData(body.apiKey, deps.secretKey));
      publishConfigChange(deps, "model", id, "updated");
      return view(row);
    },
  );

  api.delete<ById>(
    "/models/:id",
    { config: { permission: "model:write", action: "model:delete" } },
    async (request, reply) => {
      const { id } = request.params;
      const row = await prisma.model.findUnique({ where: { id } });
      if (!row) throw AdminErrors.notFound(`The model "${id}"`);
      const assignments = await prisma.projectModel.findMany({
        where: { modelId: id },
        select: { projectId: true },
      });
      const projectIds = assignments.map((a) => a.projectId);
      request.auditDetails = { modelId: id, projectIds };
      // Its project assignments go with it (cascade).
      const { count } = await prisma.model.deleteMany({ where: { id } });
      if (count === 0) throw AdminErrors.notFound(`The model "${id}"`);
      publishConfigChange(deps, "model", id, "deleted");
      for (const projectId of projectIds) publishConfigChange(deps, "project", projectId, "updated");
      publishEvent(deps.outbox, {
        event: "config.model_deleted",
        severity: "info",
        projectId: "",
        details: { modelId: id, provider: row.provider, projectIds },
      });
      return reply.code(204).send();
    },
  );
}
