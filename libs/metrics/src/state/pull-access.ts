import { createHash, timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "@gw/db";
import { type OnInvalidIntegration, resolveIntegration } from "../integration-store.js";

/**
 * Who may scrape the Prometheus pull endpoints (the exporter's GET /metrics and admin-api's
 * GET /api/metrics, one rule for both): nobody when no prometheus integration is enabled; anyone
 * when one of them has no `authToken`; otherwise a caller presenting any of their tokens as
 * `Authorization: Bearer <token>`.
 */
export type PullAccess = { kind: "none" } | { kind: "open" } | { kind: "token"; tokens: string[] };

export async function prometheusPullAccess(
  prisma: PrismaClient,
  secretKey: Buffer,
  onInvalid?: OnInvalidIntegration,
): Promise<PullAccess> {
  const rows = await prisma.integration.findMany({ where: { type: "prometheus", enabled: true } });
  const tokens: string[] = [];
  let resolved = 0;
  for (const row of rows) {
    // A row that cannot be read (secret key changed) grants nothing: failing closed.
    const integration = resolveIntegration(row, secretKey, onInvalid);
    if (integration?.type !== "prometheus") continue;
    resolved++;
    if (!integration.settings.authToken) return { kind: "open" };
    tokens.push(integration.settings.authToken);
  }
  return resolved === 0 ? { kind: "none" } : { kind: "token", tokens };
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Constant time per token (equal-length digests); every token is compared, no early exit. */
export function bearerTokenMatches(header: string | undefined, tokens: readonly string[]): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) return false;
  const given = digest(match[1]!);
  let found = false;
  for (const token of tokens) if (timingSafeEqual(given, digest(token))) found = true;
  return found;
}
