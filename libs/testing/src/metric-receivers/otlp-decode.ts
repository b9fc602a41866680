import { BinaryReader, type WireType } from "@bufbuild/protobuf/wire";
import type { DecodedMetric } from "./types.js";

/**
 * An OTLP metrics decoder written from opentelemetry-proto (collector/metrics/v1 and metrics/v1),
 * independent of the encoder the gateway uses, so a wrong field number on either side shows:
 *   ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1 }
 *   ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2 }
 *   Resource { repeated KeyValue attributes = 1 }
 *   ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2 }
 *   InstrumentationScope { string name = 1; string version = 2 }
 *   Metric { string name = 1; description = 2; unit = 3; Gauge gauge = 5; Sum sum = 7 }
 *   Gauge { repeated NumberDataPoint data_points = 1 }
 *   Sum { repeated NumberDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2; bool is_monotonic = 3 }
 *   NumberDataPoint { repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2;
 *                     fixed64 time_unix_nano = 3; double as_double = 4; sfixed64 as_int = 6 }
 *   KeyValue { string key = 1; AnyValue value = 2 }
 *   AnyValue { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4 }
 */
export interface OtlpDecoded {
  metrics: DecodedMetric[];
  resource: Record<string, string>;
  scope?: string;
}

type FieldHandler = (field: number, wireType: WireType, reader: BinaryReader) => boolean;

/** Reads every field of one message; unknown fields are skipped as protobuf requires. */
function readFields(bytes: Uint8Array, handle: FieldHandler): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (!handle(field, wireType, reader)) reader.skip(wireType, field);
  }
}

const TEMPORALITY = ["unspecified", "delta", "cumulative"] as const;

function nanosToMs(value: bigint | string): number {
  return Number(BigInt(value) / 1_000_000n);
}

function readAnyValue(bytes: Uint8Array): string {
  let value = "";
  readFields(bytes, (field, _wire, reader) => {
    if (field === 1) value = reader.string();
    else if (field === 2) value = String(reader.bool());
    else if (field === 3) value = String(reader.int64());
    else if (field === 4) value = String(reader.double());
    else return false;
    return true;
  });
  return value;
}

function readKeyValue(bytes: Uint8Array): [string, string] {
  let key = "";
  let value = "";
  readFields(bytes, (field, _wire, reader) => {
    if (field === 1) key = reader.string();
    else if (field === 2) value = readAnyValue(reader.bytes());
    else return false;
    return true;
  });
  return [key, value];
}

function readDataPoint(bytes: Uint8Array, name: string, kind: Partial<DecodedMetric>): DecodedMetric {
  const point: DecodedMetric = { name, labels: {}, value: Number.NaN, ...kind };
  readFields(bytes, (field, _wire, reader) => {
    if (field === 7) {
      const [key, value] = readKeyValue(reader.bytes());
      point.labels[key] = value;
    } else if (field === 2) point.startTimeMs = nanosToMs(reader.fixed64());
    else if (field === 3) point.timestampMs = nanosToMs(reader.fixed64());
    else if (field === 4) point.value = reader.double();
    else if (field === 6) point.value = Number(reader.sfixed64());
    else return false;
    return true;
  });
  return point;
}

function readPoints(bytes: Uint8Array, name: string, type: "sum" | "gauge"): DecodedMetric[] {
  const points: Uint8Array[] = [];
  const kind: Partial<DecodedMetric> = { type };
  readFields(bytes, (field, _wire, reader) => {
    if (field === 1) points.push(reader.bytes());
    else if (field === 2 && type === "sum") kind.temporality = TEMPORALITY[reader.int32()] ?? "unspecified";
    else if (field === 3 && type === "sum") kind.monotonic = reader.bool();
    else return false;
    return true;
  });
  return points.map((point) => readDataPoint(point, name, kind));
}

function readMetric(bytes: Uint8Array): DecodedMetric[] {
  let name = "";
  const data: { type: "sum" | "gauge"; bytes: Uint8Array }[] = [];
  readFields(bytes, (field, _wire, reader) => {
    if (field === 1) name = reader.string();
    else if (field === 5) data.push({ type: "gauge", bytes: reader.bytes() });
    else if (field === 7) data.push({ type: "sum", bytes: reader.bytes() });
    else return false;
    return true;
  });
  return data.flatMap((one) => readPoints(one.bytes, name, one.type));
}

export function decodeOtlpProtobuf(body: Uint8Array): OtlpDecoded {
  const out: OtlpDecoded = { metrics: [], resource: {} };
  readFields(body, (field, _wire, reader) => {
    if (field !== 1) return false;
    readFields(reader.bytes(), (rmField, _w, rm) => {
      if (rmField === 1) {
        readFields(rm.bytes(), (resField, _w2, res) => {
          if (resField !== 1) return false;
          const [key, value] = readKeyValue(res.bytes());
          out.resource[key] = value;
          return true;
        });
      } else if (rmField === 2) {
        readFields(rm.bytes(), (smField, _w2, sm) => {
          if (smField === 1)
            readFields(sm.bytes(), (scField, _w3, sc) => {
              if (scField !== 1) return false;
              out.scope = sc.string();
              return true;
            });
          else if (smField === 2) out.metrics.push(...readMetric(sm.bytes()));
          else return false;
          return true;
        });
      } else return false;
      return true;
    });
    return true;
  });
  return out;
}

// --- OTLP/JSON (proto3 JSON mapping with lowerCamelCase names, int64 as string or number) ---

interface JsonKeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
}
interface JsonPoint {
  attributes?: JsonKeyValue[];
  startTimeUnixNano?: string | number;
  timeUnixNano?: string | number;
  asDouble?: number | string;
  asInt?: string | number;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of list ?? [])
    out[key] = String(value?.stringValue ?? value?.boolValue ?? value?.intValue ?? value?.doubleValue ?? "");
  return out;
}

function jsonNanosToMs(value: string | number | undefined): number | undefined {
  return value === undefined ? undefined : Number(BigInt(value) / 1_000_000n);
}

export function decodeOtlpJson(text: string): OtlpDecoded {
  const body = JSON.parse(text) as {
    resourceMetrics?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeMetrics?: {
        scope?: { name?: string };
        metrics?: {
          name: string;
          gauge?: { dataPoints?: JsonPoint[] };
          sum?: { dataPoints?: JsonPoint[]; aggregationTemporality?: number | string; isMonotonic?: boolean };
        }[];
      }[];
    }[];
  };
  if (!Array.isArray(body.resourceMetrics)) throw new Error("resourceMetrics is missing");
  const out: OtlpDecoded = { metrics: [], resource: {} };
  for (const rm of body.resourceMetrics) {
    Object.assign(out.resource, jsonAttributes(rm.resource?.attributes));
    for (const sm of rm.scopeMetrics ?? []) {
      if (sm.scope?.name) out.scope = sm.scope.name;
      for (const metric of sm.metrics ?? []) {
        const data = metric.sum ?? metric.gauge;
        const kind: Partial<DecodedMetric> = metric.sum
          ? {
              type: "sum",
              monotonic: metric.sum.isMonotonic === true,
              temporality: jsonTemporality(metric.sum.aggregationTemporality),
            }
          : { type: "gauge" };
        for (const point of data?.dataPoints ?? [])
          out.metrics.push({
            name: metric.name,
            labels: jsonAttributes(point.attributes),
            value: Number(point.asDouble ?? point.asInt),
            timestampMs: jsonNanosToMs(point.timeUnixNano),
            startTimeMs: jsonNanosToMs(point.startTimeUnixNano),
            ...kind,
          });
      }
    }
  }
  return out;
}

function jsonTemporality(value: number | string | undefined): DecodedMetric["temporality"] {
  if (value === 1 || value === "AGGREGATION_TEMPORALITY_DELTA") return "delta";
  if (value === 2 || value === "AGGREGATION_TEMPORALITY_CUMULATIVE") return "cumulative";
  return "unspecified";
}
