import { createHmac } from "node:crypto";
import type { IntegrationSettingsOf } from "../integration-types.js";
import type { MetricSnapshot, MetricType } from "../samples.js";
import { mergeHeaders, type PushRequest } from "./request.js";

export const SIGNATURE_HEADER = "x-service-signature";

/** The webhook body (docs/METRICS.md "Wire formats"). Counters are cumulative since `startedAt`. */
export interface WebhookBody {
  timestamp: string;
  startedAt: string;
  metrics: { name: string; type: MetricType; labels: Record<string, string>; value: number }[];
}

export function webhookBody(snapshot: MetricSnapshot): WebhookBody {
  return {
    timestamp: snapshot.at.toISOString(),
    startedAt: snapshot.startedAt.toISOString(),
    metrics: snapshot.samples
      .filter((sample) => Number.isFinite(sample.value))
      .map((sample) => ({
        name: sample.name,
        type: sample.type,
        labels: sample.labels,
        value: sample.value,
      })),
  };
}

/** `sha256=<hex HMAC-SHA256 of the exact body bytes>` (SPEC "Authentication" 7). */
export function webhookSignature(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export function webhookRequest(
  settings: IntegrationSettingsOf<"webhook">,
  snapshot: MetricSnapshot,
): PushRequest {
  const content = webhookBody(snapshot);
  const body = JSON.stringify(content);
  // The signature is computed over the very string sent.
  const headers = mergeHeaders(settings.headers, {
    "content-type": "application/json",
    ...(settings.secret ? { [SIGNATURE_HEADER]: webhookSignature(settings.secret, body) } : {}),
  });
  return {
    url: settings.url,
    headers,
    body,
    series: content.metrics.length,
    secrets: [...Object.values(settings.headers ?? {}), ...(settings.secret ? [settings.secret] : [])],
  };
}
