import { parseLineProtocol } from "./influx-parse.js";
import { decodeDatadogSeries, decodeWebhook, verifySignature } from "./json-decode.js";
import { decodeOtlpJson, decodeOtlpProtobuf } from "./otlp-decode.js";
import { type MetricReceiver, type ReceiverSpec, startReceiver } from "./receiver.js";
import { decodeRemoteWrite } from "./remote-write-decode.js";

export { parseLineProtocol } from "./influx-parse.js";
export { decodeDatadogSeries, decodeWebhook, verifySignature } from "./json-decode.js";
export { decodeOtlpJson, decodeOtlpProtobuf } from "./otlp-decode.js";
export type { MetricReceiver, ReceiverAnswer } from "./receiver.js";
export { decodeRemoteWrite } from "./remote-write-decode.js";
export type { DecodedMetric, ReceivedAuth, ReceivedPush } from "./types.js";

/**
 * Fake metric receivers, one node:http server per push type, each speaking its service's wire
 * format and answering like it (status codes, required headers):
 * - otel: POST <url>/v1/metrics, application/x-protobuf or application/json; 200.
 * - datadog: POST <url>/api/v2/series with DD-API-KEY (403 without); 202. Point the gateway at it
 *   with sendPush's `datadogApiUrl` or SERVICE_DATADOG_API_URL=<url>.
 * - grafana: remote write at any path (use <url>/api/prom/push), snappy + protobuf, basic auth
 *   (401 without), labels sorted; 204.
 * - influxdb: POST <url>/api/v2/write?org&bucket&precision with `Authorization: Token` (401
 *   without, 400 without org or bucket); 204.
 * - webhook: POST at any path, JSON; with `webhookSecret` set, X-Service-Signature is checked
 *   over the raw body (401 when wrong); 200.
 */
export interface MetricReceivers {
  otel: MetricReceiver;
  datadog: MetricReceiver;
  grafana: MetricReceiver;
  influxdb: MetricReceiver;
  webhook: MetricReceiver & { secret: string | null; setSecret(secret: string | null): void };
  close(): Promise<void>;
}

const headerText = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value.join(",") : (value ?? "");

const otel: ReceiverSpec = {
  decode({ path, headers, raw }) {
    if (!path.endsWith("/v1/metrics")) return { ok: false, status: 404, error: `no route ${path}` };
    const type = headerText(headers["content-type"]);
    const decoded = type.startsWith("application/x-protobuf")
      ? decodeOtlpProtobuf(raw)
      : type.startsWith("application/json")
        ? decodeOtlpJson(raw.toString("utf8"))
        : null;
    if (!decoded) return { ok: false, status: 415, error: `unsupported content type ${type}` };
    return { ok: true, metrics: decoded.metrics, resource: decoded.resource, scope: decoded.scope };
  },
  // An empty ExportMetricsServiceResponse is zero bytes in protobuf; JSON clients accept it too.
  success: { status: 200, body: "" },
};

const datadog: ReceiverSpec = {
  decode({ path, headers, raw }) {
    if (path !== "/api/v2/series") return { ok: false, status: 404, error: `no route ${path}` };
    if (!headers["dd-api-key"]) return { ok: false, status: 403, error: "Forbidden" };
    if (!headerText(headers["content-type"]).startsWith("application/json"))
      return { ok: false, status: 415, error: "Unsupported Media Type" };
    return { ok: true, metrics: decodeDatadogSeries(raw.toString("utf8")) };
  },
  success: { status: 202, body: JSON.stringify({ errors: [] }) },
};

const grafana: ReceiverSpec = {
  decode({ headers, raw }) {
    if (!/^basic /i.test(headerText(headers.authorization)))
      return { ok: false, status: 401, error: "authentication required" };
    if (headerText(headers["content-encoding"]) !== "snappy")
      return { ok: false, status: 400, error: "Content-Encoding must be snappy" };
    if (!headerText(headers["content-type"]).startsWith("application/x-protobuf"))
      return { ok: false, status: 415, error: "Content-Type must be application/x-protobuf" };
    return { ok: true, metrics: decodeRemoteWrite(raw) };
  },
  success: { status: 204 },
};

const influxdb: ReceiverSpec = {
  decode({ path, query, headers, raw }) {
    if (path !== "/api/v2/write") return { ok: false, status: 404, error: `no route ${path}` };
    if (!/^token \S/i.test(headerText(headers.authorization)))
      return { ok: false, status: 401, error: "unauthorized access" };
    if (!query.get("org") || !query.get("bucket"))
      return { ok: false, status: 400, error: "org and bucket are required" };
    return { ok: true, metrics: parseLineProtocol(raw.toString("utf8"), query.get("precision") ?? "ns") };
  },
  success: { status: 204 },
};

export async function startMetricReceivers(
  options: { webhookSecret?: string } = {},
): Promise<MetricReceivers> {
  let secret: string | null = options.webhookSecret ?? null;
  const webhookSpec: ReceiverSpec = {
    decode({ headers, raw }) {
      if (!headerText(headers["content-type"]).startsWith("application/json"))
        return { ok: false, status: 415, error: "JSON expected" };
      const metrics = decodeWebhook(raw.toString("utf8"));
      if (secret === null) return { ok: true, metrics };
      const signatureValid = verifySignature(
        secret,
        raw,
        headerText(headers["x-service-signature"]) || undefined,
      );
      if (!signatureValid) return { ok: false, status: 401, error: "bad signature", metrics, signatureValid };
      return { ok: true, metrics, signatureValid };
    },
    success: { status: 200, body: JSON.stringify({ received: true }) },
  };
  const started = await Promise.all([otel, datadog, grafana, influxdb, webhookSpec].map(startReceiver));
  const [otelReceiver, datadogReceiver, grafanaReceiver, influxReceiver, webhookReceiver] = started as [
    MetricReceiver,
    MetricReceiver,
    MetricReceiver,
    MetricReceiver,
    MetricReceiver,
  ];
  // A getter (not Object.assign, which would copy today's value) so `secret` follows setSecret.
  const webhook = Object.defineProperties(webhookReceiver, {
    secret: { get: () => secret, enumerable: true },
    setSecret: {
      value: (next: string | null) => {
        secret = next;
      },
    },
  }) as MetricReceivers["webhook"];
  return {
    otel: otelReceiver,
    datadog: datadogReceiver,
    grafana: grafanaReceiver,
    influxdb: influxReceiver,
    webhook,
    async close() {
      await Promise.all(started.map((receiver) => receiver.close()));
    },
  };
}
