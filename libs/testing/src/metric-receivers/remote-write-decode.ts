import { BinaryReader, type WireType } from "@bufbuild/protobuf/wire";
import snappy from "snappyjs";
import type { DecodedMetric } from "./types.js";

/**
 * Prometheus remote write 1.0, decoded from prompb (prometheus/prompb types.proto, remote.proto):
 *   WriteRequest { repeated TimeSeries timeseries = 1 }
 *   TimeSeries { repeated Label labels = 1; repeated Sample samples = 2 }
 *   Label { string name = 1; string value = 2 }
 *   Sample { double value = 1; int64 timestamp = 2 }  (timestamp in ms)
 * The body is snappy block-compressed. Like Prometheus, labels must be sorted by name with no
 * duplicates, and every series needs a __name__.
 */
function readFields(
  bytes: Uint8Array,
  handle: (field: number, wire: WireType, r: BinaryReader) => boolean,
): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (!handle(field, wireType, reader)) reader.skip(wireType, field);
  }
}

export function decodeRemoteWrite(compressed: Uint8Array): DecodedMetric[] {
  const body = snappy.uncompress(new Uint8Array(compressed));
  const metrics: DecodedMetric[] = [];
  readFields(body, (field, _wire, reader) => {
    if (field !== 1) return false;
    const labels: [string, string][] = [];
    const samples: { value: number; timestampMs: number }[] = [];
    readFields(reader.bytes(), (tsField, _w, ts) => {
      if (tsField === 1) {
        let name = "";
        let value = "";
        readFields(ts.bytes(), (labelField, _w2, label) => {
          if (labelField === 1) name = label.string();
          else if (labelField === 2) value = label.string();
          else return false;
          return true;
        });
        labels.push([name, value]);
      } else if (tsField === 2) {
        const sample = { value: Number.NaN, timestampMs: 0 };
        readFields(ts.bytes(), (sampleField, _w2, s) => {
          if (sampleField === 1) sample.value = s.double();
          else if (sampleField === 2) sample.timestampMs = Number(s.int64());
          else return false;
          return true;
        });
        samples.push(sample);
      } else return false;
      return true;
    });
    for (let i = 1; i < labels.length; i++)
      if ((labels[i - 1]?.[0] ?? "") >= (labels[i]?.[0] ?? ""))
        throw new Error(`labels are not sorted by name: ${labels.map(([n]) => n).join(",")}`);
    const name = labels.find(([n]) => n === "__name__")?.[1];
    if (!name) throw new Error("a series has no __name__ label");
    const rest = Object.fromEntries(labels.filter(([n]) => n !== "__name__"));
    for (const sample of samples) metrics.push({ name, labels: { ...rest }, ...sample });
    return true;
  });
  return metrics;
}
