import { ValueType } from "@opentelemetry/api";
import { millisToHrTime } from "@opentelemetry/core";
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import type { IntegrationSettingsOf } from "../integration-types.js";
import { METRIC_LIST, type MetricSnapshot } from "../samples.js";
import { mergeHeaders, type PushRequest } from "./request.js";

/** Resource attribute `service.name` and instrumentation scope name of every OTLP export. */
export const OTLP_SERVICE_NAME = "llm-gateway";
export const OTLP_METRICS_PATH = "/v1/metrics";

/**
 * The snapshot as the SDK's ResourceMetrics: counters as monotonic cumulative Sums starting at
 * `snapshot.startedAt` (the metric state's creation, so a backend sees one unbroken cumulative
 * series across exporter replicas and restarts), gauges as Gauges. Every value is a double: the
 * counters hold integers well inside 2^53, and one value type keeps the backends' series stable.
 * Units stay empty on purpose: OTLP-to-Prometheus translators append unit suffixes to names,
 * which would rename the metrics of SPEC.md.
 */
export function toResourceMetrics(snapshot: MetricSnapshot): ResourceMetrics {
  const startTime = millisToHrTime(snapshot.startedAt.getTime());
  const endTime = millisToHrTime(snapshot.at.getTime());
  const metrics: MetricData[] = [];
  for (const definition of METRIC_LIST) {
    const dataPoints = snapshot.samples
      .filter((sample) => sample.name === definition.name && Number.isFinite(sample.value))
      .map((sample) => ({ startTime, endTime, attributes: { ...sample.labels }, value: sample.value }));
    if (dataPoints.length === 0) continue;
    const descriptor = {
      name: definition.name,
      description: definition.help,
      unit: "",
      valueType: ValueType.DOUBLE,
    };
    metrics.push(
      definition.type === "counter"
        ? {
            descriptor,
            aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPointType: DataPointType.SUM,
            isMonotonic: true,
            dataPoints,
          }
        : {
            descriptor,
            aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPointType: DataPointType.GAUGE,
            dataPoints,
          },
    );
  }
  return {
    resource: resourceFromAttributes({ "service.name": OTLP_SERVICE_NAME }),
    scopeMetrics: [{ scope: { name: OTLP_SERVICE_NAME }, metrics }],
  };
}

/** The ExportMetricsServiceRequest body for the protocol (protobuf bytes or JSON text bytes). */
export function encodeOtlp(snapshot: MetricSnapshot, protocol: "http/protobuf" | "http/json"): Uint8Array {
  return serialize(toResourceMetrics(snapshot), protocol);
}

function serialize(metrics: ResourceMetrics, protocol: "http/protobuf" | "http/json"): Uint8Array {
  const serializer = protocol === "http/json" ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  const body = serializer.serializeRequest(metrics);
  if (!body) throw new Error("the OTLP serializer produced no body");
  return body;
}

/**
 * The endpoint as configured, with the OTLP/HTTP metrics path appended unless it already ends
 * with it: operators paste either a collector's base URL (http://collector:4318, the spec's
 * OTEL_EXPORTER_OTLP_ENDPOINT style) or the full signal URL (.../v1/metrics).
 */
export function otlpMetricsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith(OTLP_METRICS_PATH)) url.pathname = `${path}${OTLP_METRICS_PATH}`;
  return url.href;
}

export function otlpRequest(settings: IntegrationSettingsOf<"otel">, snapshot: MetricSnapshot): PushRequest {
  const protocol = settings.protocol ?? "http/protobuf";
  const headers = settings.headers ?? {};
  const metrics = toResourceMetrics(snapshot);
  return {
    url: otlpMetricsUrl(settings.endpoint),
    headers: mergeHeaders(headers, {
      "content-type": protocol === "http/json" ? "application/json" : "application/x-protobuf",
    }),
    body: serialize(metrics, protocol),
    series: metrics.scopeMetrics.reduce(
      (total, scope) => total + scope.metrics.reduce((sum, metric) => sum + metric.dataPoints.length, 0),
      0,
    ),
    secrets: Object.values(headers),
  };
}
