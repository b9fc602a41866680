import { newId } from "@gw/db";
import {
  type IntegrationType,
  type ResolvedIntegration,
  readStoredSecrets,
  resolveIntegration,
  type StoredSecrets,
  storedSettings,
  toStoredIntegration,
} from "@gw/metrics";
import type { FastifyInstance } from "fastify";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { checkSettings } from "../integrations/check-settings.js";
import { mergeSettings } from "../integrations/merge.js";
import {
  createIntegrationBody,
  parseCreate,
  parsePatch,
  patchIntegrationBody,
  settingsOf,
} from "../integrations/schemas.js";
import { testIntegration } from "../integrations/test-push.js";
import { integrationView } from "../integrations/view.js";

/**
 * `/api/integrations` (SPEC "Integrations", docs/METRICS.md "Integrations API"): metric export
 * targets. Every operation needs settings:write (SPEC: "for all", reads included: the answers
 * name the push addresses). Storage and secret handling: @gw/metrics integration-store.
 */
export function registerIntegrationRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;
  const permission = "settings:write" as const;

  async function findRow(id: string) {
    const row = await prisma.integration.findUnique({ where: { id } });
    if (!row) throw AdminErrors.notFound("The integration");
    return row;
  }

  api.get("/integrations", { config: { permission } }, async () => {
    const rows = await prisma.integration.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    return { integrations: rows.map(integrationView) };
  });

  api.post(
    "/integrations",
    { config: { body: createIntegrationBody, permission, action: "integration:create" } },
    async (request, reply) => {
      const body = parseCreate(request.body);
      const settings = checkSettings(body.type, settingsOf(body));
      const id = newId("int");
      // No name given: the type names it ("datadog"), which is what a list shows anyway.
      const name = body.name ?? body.type;
      const enabled = body.enabled ?? true;
      const stored = toStoredIntegration(
        { type: body.type, settings } as ResolvedIntegration,
        deps.secretKey,
      );
      const row = await prisma.integration.create({
        data: { id, type: body.type, name, enabled, ...stored },
      });
      request.auditDetails = { integrationId: id, type: body.type, name, enabled };
      publishConfigChange(deps, "integration", id, "created");
      return reply.code(201).send(integrationView(row));
    },
  );

  api.get<{ Params: { id: string } }>("/integrations/:id", { config: { permission } }, async (request) =>
    integrationView(await findRow(request.params.id)),
  );

  api.patch<{ Params: { id: string } }>(
    "/integrations/:id",
    { config: { body: patchIntegrationBody, permission, action: "integration:update" } },
    async (request) => {
      const { id } = request.params;
      const row = await findRow(id);
      const type = row.type as IntegrationType;
      const patch = parsePatch(type, request.body);
      const changed = Object.keys(patch);
      request.auditDetails = { integrationId: id, type, changed };
      const settingsChanged = changed.some((field) => field !== "name" && field !== "enabled");
      let stored = {};
      if (settingsChanged) {
        let secrets: StoredSecrets = {};
        try {
          secrets = readStoredSecrets(row, deps.secretKey);
        } catch {
          // Unreadable (the key changed): the PATCH must then give the secrets again; validation says which.
          request.log.warn({ integrationId: id }, "integration secrets cannot be decrypted; keeping none");
        }
        const settings = checkSettings(type, mergeSettings(storedSettings(row, secrets), patch));
        stored = toStoredIntegration({ type, settings } as ResolvedIntegration, deps.secretKey);
      }
      const updated = await prisma.integration.update({
        where: { id },
        data: {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
          ...stored,
        },
      });
      publishConfigChange(deps, "integration", id, "updated");
      return integrationView(updated);
    },
  );

  api.delete<{ Params: { id: string } }>(
    "/integrations/:id",
    { config: { permission, action: "integration:delete" } },
    async (request, reply) => {
      const { id } = request.params;
      const { count } = await prisma.integration.deleteMany({ where: { id } });
      if (count === 0) throw AdminErrors.notFound("The integration");
      request.auditDetails = { integrationId: id };
      publishConfigChange(deps, "integration", id, "deleted");
      return reply.code(204).send();
    },
  );

  api.post<{ Params: { id: string } }>(
    "/integrations/:id/test",
    { config: { permission, action: "integration:test" } },
    async (request) => {
      const row = await findRow(request.params.id);
      let problem = "";
      const integration = resolveIntegration(row, deps.secretKey, (invalid) => {
        problem = invalid.reason;
      });
      const result = integration
        ? await testIntegration(deps, integration)
        : { ok: false, message: `the integration cannot be used: ${problem}` };
      request.auditDetails = { integrationId: row.id, type: row.type, ok: result.ok };
      return result;
    },
  );
}
