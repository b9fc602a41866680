import type { Prisma, PrismaClient } from "@gw/db";
import { decryptSecret, encryptSecret } from "@gw/security";
import {
  INTEGRATION_TYPES,
  IntegrationSettings,
  type IntegrationType,
  isSensitiveHeader,
  type ResolvedIntegration,
  SECRET_FIELDS,
  type SecretField,
} from "./integration-types.js";

/**
 * The mapping between a row of `integrations` and a `ResolvedIntegration`.
 *
 * Storage layout (one place decides it, so the API and the exporter never disagree):
 * - `config` (jsonb): the type's non-secret fields. `headers` keeps EVERY header name; a sensitive
 *   header (isSensitiveHeader) has the value `null` there, so the API can answer the masked view
 *   from `config` alone, without decrypting anything.
 * - `secretsEncrypted`: AES-256-GCM (@gw/security) of JSON `{ authToken?, apiKey?, token?, secret?,
 *   headers?: { <sensitive header>: value } }`, or null when the integration has no secret at all.
 */

/** The columns this module reads (structural, so callers may pass a full Prisma row or a select). */
export interface IntegrationRow {
  id: string;
  type: string;
  name: string;
  enabled: boolean;
  config: unknown;
  secretsEncrypted: string | null;
}

/** What the encrypted column holds once decrypted. */
export interface StoredSecrets {
  authToken?: string;
  apiKey?: string;
  token?: string;
  secret?: string;
  headers?: Record<string, string>;
}

/** Why a stored row could not be resolved. `reason` never contains a secret or a field value. */
export interface InvalidIntegration {
  id: string;
  type: string;
  reason: string;
}
export type OnInvalidIntegration = (invalid: InvalidIntegration) => void;

/** The row columns written for an integration (create and update). */
export interface StoredIntegration {
  config: Prisma.InputJsonObject;
  secretsEncrypted: string | null;
}

export function isIntegrationType(value: unknown): value is IntegrationType {
  return typeof value === "string" && (INTEGRATION_TYPES as readonly string[]).includes(value);
}

/** The secret fields a type has (prometheus: authToken, datadog: apiKey, ...), in SECRET_FIELDS order. */
export function secretFieldsOf(type: IntegrationType): SecretField[] {
  const shape = IntegrationSettings[type].shape as Record<string, unknown>;
  return SECRET_FIELDS.filter((field) => field in shape);
}

/** Whether a type has a free-form `headers` map (otel, webhook). */
export function hasHeaders(type: IntegrationType): boolean {
  return "headers" in (IntegrationSettings[type].shape as Record<string, unknown>);
}

/**
 * Splits complete settings into the non-secret `config` and the secrets, then encrypts the
 * secrets. `secretsEncrypted` is null when there is nothing secret to store.
 */
export function toStoredIntegration(
  integration: Pick<ResolvedIntegration, "type" | "settings">,
  secretKey: Buffer,
): StoredIntegration {
  const config: Record<string, Prisma.InputJsonValue | null> = {};
  const secrets: StoredSecrets = {};
  for (const [field, value] of Object.entries(integration.settings as Record<string, unknown>)) {
    if (value === undefined) continue;
    if ((SECRET_FIELDS as readonly string[]).includes(field)) {
      secrets[field as SecretField] = value as string;
    } else if (field === "headers") {
      const { visible, sensitive } = splitHeaders(value as Record<string, string>);
      config.headers = visible;
      if (Object.keys(sensitive).length > 0) secrets.headers = sensitive;
    } else {
      config[field] = value as Prisma.InputJsonValue;
    }
  }
  const secretsEncrypted =
    Object.keys(secrets).length > 0 ? encryptSecret(JSON.stringify(secrets), secretKey) : null;
  return { config: config as Prisma.InputJsonObject, secretsEncrypted };
}

function splitHeaders(headers: Record<string, string>): {
  visible: Record<string, string | null>;
  sensitive: Record<string, string>;
} {
  const visible: Record<string, string | null> = {};
  const sensitive: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (isSensitiveHeader(name)) {
      visible[name] = null;
      sensitive[name] = value;
    } else {
      visible[name] = value;
    }
  }
  return { visible, sensitive };
}

/** Decrypts the secrets of a row (empty when it has none). Throws when the ciphertext is unreadable. */
export function readStoredSecrets(
  row: Pick<IntegrationRow, "secretsEncrypted">,
  secretKey: Buffer,
): StoredSecrets {
  if (!row.secretsEncrypted) return {};
  const parsed: unknown = JSON.parse(decryptSecret(row.secretsEncrypted, secretKey));
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error("stored secrets are not an object");
  }
  return parsed as StoredSecrets;
}

/** The row's non-secret config as an object (a corrupted non-object column reads as `{}`). */
export function storedConfig(row: Pick<IntegrationRow, "config">): Record<string, unknown> {
  const config = row.config;
  return config && typeof config === "object" && !Array.isArray(config)
    ? (config as Record<string, unknown>)
    : {};
}

/**
 * Complete settings (secrets included) of a row, NOT validated: config and decrypted secrets merged,
 * sensitive header values put back. The API's PATCH merges into this before validating.
 */
export function storedSettings(row: IntegrationRow, secrets: StoredSecrets): Record<string, unknown> {
  const config = storedConfig(row);
  const settings: Record<string, unknown> = { ...config };
  for (const field of SECRET_FIELDS) {
    if (typeof secrets[field] === "string") settings[field] = secrets[field];
  }
  if (config.headers && typeof config.headers === "object") {
    const headers: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(config.headers as Record<string, unknown>)) {
      // A sensitive header whose secret is missing stays null: validation then rejects the row.
      headers[name] = value === null ? (secrets.headers?.[name] ?? null) : value;
    }
    settings.headers = headers;
  }
  return settings;
}

/**
 * The `ResolvedIntegration` of a row, or null (reported through `onInvalid`) when the row has an
 * unknown type, cannot be decrypted with `secretKey`, or does not validate: one bad row must never
 * stop the exporter from serving the others.
 */
export function resolveIntegration(
  row: IntegrationRow,
  secretKey: Buffer,
  onInvalid?: OnInvalidIntegration,
): ResolvedIntegration | null {
  const invalid = (reason: string) => {
    onInvalid?.({ id: row.id, type: row.type, reason });
    return null;
  };
  if (!isIntegrationType(row.type)) return invalid("unknown integration type");
  let secrets: StoredSecrets;
  try {
    secrets = readStoredSecrets(row, secretKey);
  } catch {
    // The cipher's message says nothing secret, but a fixed reason is simpler to reason about.
    return invalid("stored secrets cannot be decrypted (was the secret key changed?)");
  }
  const parsed = IntegrationSettings[row.type].safeParse(storedSettings(row, secrets));
  if (!parsed.success) return invalid(`invalid settings: ${describeIssues(parsed.error.issues)}`);
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    enabled: row.enabled,
    settings: parsed.data,
  } as ResolvedIntegration;
}

/** Field paths and issue codes only: zod messages may quote the received value. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; code: string }[]): string {
  return issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"} (${issue.code})`).join(", ");
}

const ROW_SELECT = {
  id: true,
  type: true,
  name: true,
  enabled: true,
  config: true,
  secretsEncrypted: true,
} as const;

/** One integration by id, resolved; null when it does not exist or is invalid (see resolveIntegration). */
export async function loadIntegration(
  prisma: PrismaClient,
  secretKey: Buffer,
  id: string,
  onInvalid?: OnInvalidIntegration,
): Promise<ResolvedIntegration | null> {
  const row = await prisma.integration.findUnique({ where: { id }, select: ROW_SELECT });
  return row ? resolveIntegration(row, secretKey, onInvalid) : null;
}

/** Every enabled integration that resolves, oldest first; invalid rows are skipped and reported. */
export async function loadEnabledIntegrations(
  prisma: PrismaClient,
  secretKey: Buffer,
  onInvalid?: OnInvalidIntegration,
): Promise<ResolvedIntegration[]> {
  const rows = await prisma.integration.findMany({
    where: { enabled: true },
    select: ROW_SELECT,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.flatMap((row) => resolveIntegration(row, secretKey, onInvalid) ?? []);
}

/** Stored messages are for people reading the API; a receiver's long error body is cut. */
export const PUSH_MESSAGE_MAX_LENGTH = 500;

/**
 * Records the outcome of a push on the row. Raw SQL on purpose: a Prisma update would bump
 * `updatedAt`, which says when the configuration last changed, not when it was last pushed.
 * A row deleted meanwhile is not an error (0 rows updated).
 */
export async function recordPushResult(
  prisma: PrismaClient,
  id: string,
  result: { ok: boolean; message: string },
  at: Date,
): Promise<void> {
  const message = result.message.slice(0, PUSH_MESSAGE_MAX_LENGTH);
  await prisma.$executeRaw`UPDATE "integrations" SET "lastPushAt" = ${at}, "lastPushOk" = ${result.ok}, "lastPushMessage" = ${message} WHERE "id" = ${id}`;
}
