import type { DecodedMetric } from "./types.js";

/**
 * An InfluxDB line protocol parser (docs.influxdata.com, "Line protocol" reference), written
 * without the client library the gateway encodes with:
 *   measurement[,tag=value...] field=value[,field=value...] [timestamp]
 * Escapes: `\,` and `\ ` in measurements, `\,` `\=` `\ ` in tag keys, tag values and field keys,
 * `\"` and `\\` inside double-quoted string fields. Field values: float (default), `123i`
 * integer, `123u` unsigned, "string", t/true/f/false booleans. Each numeric field becomes one
 * DecodedMetric named `<measurement>` for the field `value`, else `<measurement>.<field>`.
 */
const TO_MS: Record<string, (value: bigint) => number> = {
  ns: (v) => Number(v / 1_000_000n),
  us: (v) => Number(v / 1_000n),
  ms: (v) => Number(v),
  s: (v) => Number(v * 1_000n),
};

export function parseLineProtocol(text: string, precision = "ns"): DecodedMetric[] {
  const toMs = TO_MS[precision];
  if (!toMs) throw new Error(`unknown precision ${precision}`);
  const out: DecodedMetric[] = [];
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/\r$/, "");
    if (line.trim() === "" || line.startsWith("#")) continue;
    out.push(...parseLine(line, toMs));
  }
  return out;
}

/** Splits at unescaped `separator`s outside double quotes. */
function splitUnescaped(text: string, separator: string, limit = Number.POSITIVE_INFINITY): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "\\" && i + 1 < text.length) {
      current += char + text[i + 1];
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted && parts.length < limit - 1) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts;
}

function unescapeLp(text: string): string {
  return text.replace(/\\([,= "\\])/g, "$1");
}

function parseLine(line: string, toMs: (value: bigint) => number): DecodedMetric[] {
  const sections = splitUnescaped(line, " ");
  if (sections.length < 2 || sections.length > 3) throw new Error(`malformed line: ${line.slice(0, 100)}`);
  const [series = "", fieldSet = "", timestamp] = sections;
  const [measurementRaw = "", ...tagParts] = splitUnescaped(series, ",");
  const measurement = unescapeLp(measurementRaw);
  if (!measurement) throw new Error("a line has no measurement");
  const labels: Record<string, string> = {};
  for (const tag of tagParts) {
    const [key, value] = splitUnescaped(tag, "=", 2);
    if (!key || value === undefined || value === "") throw new Error(`malformed tag "${tag}"`);
    labels[unescapeLp(key)] = unescapeLp(value);
  }
  if (timestamp !== undefined && !/^-?\d+$/.test(timestamp))
    throw new Error(`malformed timestamp "${timestamp}"`);
  const timestampMs = timestamp === undefined ? undefined : toMs(BigInt(timestamp));
  const metrics: DecodedMetric[] = [];
  for (const field of splitUnescaped(fieldSet, ",")) {
    const [key, raw] = splitUnescaped(field, "=", 2);
    if (!key || raw === undefined || raw === "") throw new Error(`malformed field "${field}"`);
    const value = fieldNumber(raw);
    if (value === undefined) continue;
    const fieldName = unescapeLp(key);
    metrics.push({
      name: fieldName === "value" ? measurement : `${measurement}.${fieldName}`,
      labels: { ...labels },
      value,
      ...(timestampMs === undefined ? {} : { timestampMs }),
    });
  }
  return metrics;
}

/** A numeric field's value; undefined for strings and booleans; throws on garbage. */
function fieldNumber(raw: string): number | undefined {
  if (raw.startsWith('"')) return undefined;
  if (/^(t|T|true|True|TRUE|f|F|false|False|FALSE)$/.test(raw)) return undefined;
  if (/^-?\d+i$/.test(raw) || /^\d+u$/.test(raw)) return Number(raw.slice(0, -1));
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  throw new Error(`malformed field value "${raw}"`);
}
