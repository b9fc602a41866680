import {
  type IntegrationRow,
  IntegrationSettings,
  isIntegrationType,
  isSensitiveHeader,
  SECRET_FIELDS,
  storedConfig,
} from "@gw/metrics";

/** An `integrations` row as Prisma returns it (structural: @gw/db does not export the model type). */
export interface IntegrationRecord extends IntegrationRow {
  lastPushAt: Date | null;
  lastPushOk: boolean | null;
  lastPushMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const isSecret = (field: string) => (SECRET_FIELDS as readonly string[]).includes(field);

/**
 * What the API answers for an integration (SPEC "Integration"): every field of its type, secret
 * fields always `null` (set or not: SPEC "returned masked as null"), headers with sensitive values
 * `null`. Built from the row's `config` alone: secrets are never decrypted to answer.
 */
export function integrationView(row: IntegrationRecord): Record<string, unknown> {
  const config = storedConfig(row);
  const fields: Record<string, unknown> = {};
  if (isIntegrationType(row.type)) {
    for (const field of Object.keys(IntegrationSettings[row.type].shape)) {
      if (isSecret(field)) fields[field] = null;
      else if (field === "headers") fields.headers = maskedHeaders(config.headers);
      else fields[field] = config[field] ?? null;
    }
  }
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    enabled: row.enabled,
    ...fields,
    lastPushAt: row.lastPushAt?.toISOString() ?? null,
    lastPushOk: row.lastPushOk,
    lastPushMessage: row.lastPushMessage,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Sensitive values are already null in config; masking again by name costs nothing and guards old rows. */
function maskedHeaders(headers: unknown): Record<string, string | null> {
  if (!headers || typeof headers !== "object") return {};
  return Object.fromEntries(
    Object.entries(headers as Record<string, unknown>).map(([name, value]) => [
      name,
      typeof value === "string" && !isSensitiveHeader(name) ? value : null,
    ]),
  );
}
