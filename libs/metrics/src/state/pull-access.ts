import { createHash, timingSafeEqual } from "node:crypto";
import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheusText } from "../formats/prometheus-text.js";
import { type OnInvalidIntegration, resolveIntegration } from "../integration-store.js";
import { readMetricSnapshot } from "./read-snapshot.js";

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

/** What a Prometheus pull endpoint answers: the text, or a refusal in the error envelope. */
export type PullAnswer =
  | { status: 200; contentType: string; text: string }
  | {
      status: 401 | 404 | 503;
      error: { message: string; type: string; code: string };
      headers: Record<string, string>;
    };

export interface PullDeps {
  prisma: PrismaClient;
  counters: CounterStore;
  secretKey: Buffer;
  log: Pick<Logger, "warn" | "error">;
  keyPrefix?: string | undefined;
  now?: (() => number) | undefined;
}

/**
 * One scrape, for both pull endpoints: 404 when no prometheus integration is enabled (nothing asked
 * for one, and the message says what to create), 401 without a matching token, 503 when the
 * counter store or database cannot be read (the scraper's target goes down, it is not its fault),
 * else the text exposition of the shared snapshot (every replica renders the same text).
 */
export async function answerPrometheusPull(
  deps: PullDeps,
  authorization: string | undefined,
): Promise<PullAnswer> {
  const refuse = (status: 401 | 404 | 503, type: string, code: string, message: string): PullAnswer => ({
    status,
    error: { message, type, code },
    headers:
      status === 401 ? { "www-authenticate": 'Bearer realm="metrics"' } : ({} as Record<string, string>),
  });
  try {
    const access = await prometheusPullAccess(deps.prisma, deps.secretKey, (invalid) =>
      deps.log.warn({ integrationId: invalid.id, reason: invalid.reason }, "prometheus integration skipped"),
    );
    if (access.kind === "none")
      return refuse(
        404,
        "not_found",
        "metrics_disabled",
        "No enabled prometheus integration: create one (POST /api/integrations, type prometheus) to serve metrics here.",
      );
    if (access.kind === "token" && !bearerTokenMatches(authorization, access.tokens))
      return refuse(
        401,
        "authentication_error",
        "unauthenticated",
        "Send the prometheus integration's authToken as Authorization: Bearer <authToken>.",
      );
    const snapshot = await readMetricSnapshot({
      counters: deps.counters,
      prisma: deps.prisma,
      ...(deps.keyPrefix ? { keyPrefix: deps.keyPrefix } : {}),
      ...(deps.now ? { now: deps.now } : {}),
    });
    return { status: 200, contentType: PROMETHEUS_CONTENT_TYPE, text: await renderPrometheusText(snapshot) };
  } catch (error) {
    deps.log.error({ err: error }, "metrics snapshot failed");
    return refuse(
      503,
      "unavailable",
      "metrics_unavailable",
      "The metrics cannot be read right now; it is logged.",
    );
  }
}
