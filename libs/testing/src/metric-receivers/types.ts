import type { IncomingHttpHeaders } from "node:http";

/** One series as a receiver understood it, whatever the wire format. */
export interface DecodedMetric {
  name: string;
  labels: Record<string, string>;
  value: number;
  /**
   * The format's own type word: OTLP "sum" | "gauge", Datadog "count" | "rate" | "gauge" |
   * "unspecified", webhook "counter" | "gauge"; absent where the format has none (remote write,
   * line protocol).
   */
  type?: string;
  timestampMs?: number;
  /** OTLP sums: the cumulative start, temporality and monotonicity as sent. */
  startTimeMs?: number;
  temporality?: "delta" | "cumulative" | "unspecified";
  monotonic?: boolean;
  /** Datadog counts: the interval in seconds. */
  intervalS?: number;
}

/** Credentials as they arrived, parsed for the common schemes. */
export interface ReceivedAuth {
  /** The raw Authorization header. */
  authorization?: string;
  basic?: { username: string; password: string };
  /** `Authorization: Token <x>` (InfluxDB) or `Bearer <x>`. */
  token?: string;
  bearer?: string;
  /** Datadog's DD-API-KEY. */
  apiKey?: string;
  /** The X-Service-Signature header (webhook). */
  signature?: string;
}

export interface ReceivedPush {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  auth: ReceivedAuth;
  /** The body bytes exactly as received (before any decompression). */
  raw: Buffer;
  metrics: DecodedMetric[];
  /** Why the body could not be decoded (the receiver answered 4xx). */
  error?: string;
  /** OTLP: resource attributes and scope name. */
  resource?: Record<string, string>;
  scope?: string;
  /** Webhook: whether X-Service-Signature matched the receiver's secret (undefined: no secret set). */
  signatureValid?: boolean;
}

/** What a decoder answers: the metrics, or a client error like the real service would give. */
export type DecodeResult =
  | {
      ok: true;
      metrics: DecodedMetric[];
      resource?: Record<string, string>;
      scope?: string;
      signatureValid?: boolean;
    }
  | { ok: false; status: number; error: string; metrics?: DecodedMetric[]; signatureValid?: boolean };
