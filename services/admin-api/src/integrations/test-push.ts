import { pushIntegration, type ResolvedIntegration } from "@gw/metrics";
import { metadataUrlsAllowed } from "@gw/security";
import type { AdminDeps } from "../deps.js";

export interface TestResult {
  ok: boolean;
  message: string;
}

/**
 * `POST /api/integrations/:id/test`: prometheus is pulled, so there is nothing to send (always ok);
 * a push type sends one real push now, through the exporter's own path (forced: the interval and
 * the other replicas' pushes do not hold it back), and the result is recorded on the row like a
 * scheduled push. A disabled integration is tested too: testing before enabling is the point.
 * Never throws: a failure is `ok: false` with a reason, and no secret ever reaches the message.
 */
export async function testIntegration(
  deps: AdminDeps,
  integration: ResolvedIntegration,
): Promise<TestResult> {
  if (integration.type === "prometheus") {
    const auth = integration.settings.authToken ? " with Authorization: Bearer <authToken>" : "";
    return { ok: true, message: `prometheus is pull-based: scrape GET /api/metrics${auth}` };
  }
  try {
    const result = await pushIntegration(
      {
        counters: deps.counters,
        prisma: deps.prisma,
        secretKey: deps.secretKey,
        logger: deps.logger,
        allowMetadataUrls: metadataUrlsAllowed(),
        keyPrefix: deps.metricsKeyPrefix,
        ...(deps.now ? { now: deps.now } : {}),
      },
      integration,
      { force: true },
    );
    return { ok: result.ok, message: withoutSecrets(result.message, integration) };
  } catch (error) {
    deps.logger.error({ err: error, integrationId: integration.id }, "integration test push failed");
    return { ok: false, message: "the push failed on our side; it is logged" };
  }
}

/** Belt and braces: the push path promises messages without secrets; this makes sure of it. */
function withoutSecrets(message: string, integration: ResolvedIntegration): string {
  const settings = integration.settings as Record<string, unknown>;
  const headers = (settings.headers ?? {}) as Record<string, string>;
  const secrets = [
    settings.authToken,
    settings.apiKey,
    settings.token,
    settings.secret,
    ...Object.values(headers),
  ]
    .filter((value): value is string => typeof value === "string" && value.length >= 4)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((text, secret) => text.split(secret).join("***"), message);
}
