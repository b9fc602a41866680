import { z } from "zod";

/**
 * Metric export integrations (SPEC "Integration"): the fields of each type, which of them are
 * secret, and the one shape the exporter and the API pass around (`ResolvedIntegration`, secrets
 * decrypted). Validation of API bodies lives with the API; this file says what a valid integration is.
 */
export const INTEGRATION_TYPES = ["prometheus", "otel", "datadog", "grafana", "influxdb", "webhook"] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];
export const PUSH_TYPES: readonly IntegrationType[] = ["otel", "datadog", "grafana", "influxdb", "webhook"];

export const DATADOG_SITES = [
  "datadoghq.com",
  "datadoghq.eu",
  "us3.datadoghq.com",
  "us5.datadoghq.com",
  "ddog-gov.com",
] as const;

export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;

/** Secret fields per SPEC: stored encrypted, answered as `null`. */
export const SECRET_FIELDS = ["authToken", "apiKey", "token", "secret"] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];

const headers = z.record(z.string(), z.string());

/** Per type: the complete settings of a valid integration (secrets included, decrypted). */
export const IntegrationSettings = {
  prometheus: z.object({ authToken: z.string().min(1).optional() }),
  otel: z.object({
    endpoint: z.string().url(),
    protocol: z.enum(OTLP_PROTOCOLS).default("http/protobuf"),
    headers: headers.default({}),
  }),
  datadog: z.object({ apiKey: z.string().min(1), site: z.enum(DATADOG_SITES).default("datadoghq.com") }),
  grafana: z.object({ url: z.string().url(), username: z.string().min(1), apiKey: z.string().min(1) }),
  influxdb: z.object({
    url: z.string().url(),
    token: z.string().min(1),
    org: z.string().min(1),
    bucket: z.string().min(1),
  }),
  webhook: z.object({
    url: z.string().url(),
    secret: z.string().min(1).optional(),
    headers: headers.default({}),
  }),
} as const satisfies Record<IntegrationType, z.ZodTypeAny>;

export type IntegrationSettingsOf<T extends IntegrationType> = z.infer<(typeof IntegrationSettings)[T]>;

/** An integration as the exporter uses it: every field, secrets decrypted. Never answered by the API. */
export type ResolvedIntegration = {
  [T in IntegrationType]: {
    id: string;
    name: string;
    type: T;
    enabled: boolean;
    settings: IntegrationSettingsOf<T>;
  };
}[IntegrationType];

/**
 * Header names whose values are credentials (otel and webhook `headers` often carry an API key):
 * stored encrypted like the secret fields and answered as `null`.
 */
export function isSensitiveHeader(name: string): boolean {
  return /authorization|api[-_]?key|token|secret|password|cookie/i.test(name);
}
