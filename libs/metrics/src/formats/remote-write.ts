import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import snappy from "snappyjs";
import type { IntegrationSettingsOf } from "../integration-types.js";
import { METRIC_LIST, type MetricSnapshot } from "../samples.js";
import type { PushRequest } from "./request.js";

/**
 * Prometheus remote write 1.0 (prompb): WriteRequest { repeated TimeSeries timeseries = 1 },
 * TimeSeries { repeated Label labels = 1; repeated Sample samples = 2 },
 * Label { string name = 1; string value = 2 }, Sample { double value = 1; int64 timestamp = 2 }.
 * Three small messages do not justify generated code: they are written by hand with protobuf-es's
 * BinaryWriter.
 */
export interface RemoteWriteSeries {
  labels: { name: string; value: string }[];
  value: number;
  timestampMs: number;
}

/**
 * One series per sample, labels sorted by name (the protocol requires it; `__name__` sorts first
 * since `_` precedes the lowercase letters). Labels with an empty value are left out: in
 * Prometheus an empty label is the same as no label, and some receivers reject them. Counters are
 * sent cumulative, as Prometheus expects.
 */
export function remoteWriteSeries(snapshot: MetricSnapshot): RemoteWriteSeries[] {
  const known = new Set(METRIC_LIST.map((metric) => metric.name));
  const timestampMs = snapshot.at.getTime();
  return snapshot.samples
    .filter((sample) => known.has(sample.name) && Number.isFinite(sample.value))
    .map((sample) => {
      const labels = [
        { name: "__name__", value: sample.name },
        ...Object.entries(sample.labels)
          .filter(([, value]) => value !== "")
          .map(([name, value]) => ({ name, value })),
      ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { labels, value: sample.value, timestampMs };
    });
}

/** The WriteRequest protobuf, uncompressed. */
export function encodeWriteRequest(series: RemoteWriteSeries[]): Uint8Array {
  const writer = new BinaryWriter();
  for (const one of series) {
    writer.tag(1, WireType.LengthDelimited).fork();
    for (const label of one.labels) {
      writer.tag(1, WireType.LengthDelimited).fork();
      writer.tag(1, WireType.LengthDelimited).string(label.name);
      writer.tag(2, WireType.LengthDelimited).string(label.value);
      writer.join();
    }
    writer.tag(2, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.Bit64).double(one.value);
    writer.tag(2, WireType.Varint).int64(one.timestampMs);
    writer.join();
    writer.join();
  }
  return writer.finish();
}

/** The body of a remote write request: the WriteRequest in snappy's block format (not framed). */
export function encodeRemoteWrite(snapshot: MetricSnapshot): Uint8Array {
  return snappy.compress(encodeWriteRequest(remoteWriteSeries(snapshot)));
}

export function remoteWriteRequest(
  settings: IntegrationSettingsOf<"grafana">,
  snapshot: MetricSnapshot,
): PushRequest {
  const basic = Buffer.from(`${settings.username}:${settings.apiKey}`).toString("base64");
  const series = remoteWriteSeries(snapshot);
  return {
    // Grafana Cloud gives the full push URL (.../api/prom/push): used as given.
    url: settings.url,
    headers: {
      "content-type": "application/x-protobuf",
      "content-encoding": "snappy",
      "x-prometheus-remote-write-version": "0.1.0",
      authorization: `Basic ${basic}`,
    },
    body: snappy.compress(encodeWriteRequest(series)),
    series: series.length,
    secrets: [settings.apiKey, basic],
  };
}
