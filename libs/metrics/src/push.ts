import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { assertFetchableUrl, guardedLookup, metadataUrlsAllowed, UrlRefusedError } from "@gw/security";
import { datadogRequest } from "./formats/datadog.js";
import { influxRequest } from "./formats/influx-line.js";
import { otlpRequest } from "./formats/otlp.js";
import { remoteWriteRequest } from "./formats/remote-write.js";
import type { PushRequest } from "./formats/request.js";
import { webhookRequest } from "./formats/webhook.js";
import type { ResolvedIntegration } from "./integration-types.js";
import type { MetricSnapshot } from "./samples.js";

export const PUSH_TIMEOUT_MS = 10_000;
/** How much of a failed answer's body the message quotes. */
const EXCERPT_CHARS = 200;
/** What is read of an answer at most: a receiver's error page is not worth more. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface PushOptions {
  /** The snapshot of this integration's last successful push (Datadog counts are deltas since it). */
  previous?: MetricSnapshot | null;
  timeoutMs?: number;
  /** Lets the push reach link-local/metadata addresses (SERVICE_ALLOW_METADATA_URLS=1). */
  allowMetadataUrls?: boolean;
  /** Sends with this fetch instead of node:http (the URL check still applies, the DNS guard cannot). */
  fetchImpl?: typeof fetch;
  /** Replaces https://api.<site> for Datadog (a proxy, a test receiver); else SERVICE_DATADOG_API_URL. */
  datadogApiUrl?: string;
}

export interface PushResult {
  ok: boolean;
  message: string;
  status?: number;
}

/**
 * Sends one push of `snapshot` in the integration's native format. Never throws: every failure
 * (bad URL, refused address, DNS, connection, timeout, non-2xx) is `ok: false` with a reason an
 * operator can act on. The reason quotes a piece of the receiver's answer, with every secret of
 * the integration (and its wire forms) replaced: receivers do echo credentials back.
 */
export async function sendPush(
  integration: ResolvedIntegration,
  snapshot: MetricSnapshot,
  options: PushOptions = {},
): Promise<PushResult> {
  if (integration.type === "prometheus")
    return { ok: true, message: "pull-based: Prometheus scrapes the metrics endpoint, nothing to push" };
  let built: PushRequest;
  try {
    built = buildRequest(integration, snapshot, options);
  } catch (error) {
    return { ok: false, message: `the push could not be built: ${errorText(error)}` };
  }
  const redactor = (text: string) => redact(text, built.secrets);
  let url: URL;
  try {
    url = new URL(built.url);
  } catch {
    return { ok: false, message: "the URL is not valid" };
  }
  const allowMetadata = options.allowMetadataUrls ?? metadataUrlsAllowed();
  const timeoutMs = options.timeoutMs ?? PUSH_TIMEOUT_MS;
  try {
    assertFetchableUrl(url, allowMetadata);
    const signal = AbortSignal.timeout(timeoutMs);
    const answer = await (options.fetchImpl
      ? sendWithFetch(options.fetchImpl, url, built, signal)
      : sendWithHttp(url, built, signal, allowMetadata)
    ).catch((error: unknown) => {
      throw signal.aborted ? new PushTimeout() : error;
    });
    if (answer.status >= 200 && answer.status < 300)
      return {
        ok: true,
        status: answer.status,
        message: `pushed ${built.series} series to ${url.host} (HTTP ${answer.status})`,
      };
    const excerpt = redactor(answer.text.replace(/\s+/g, " ").trim().slice(0, EXCERPT_CHARS));
    return {
      ok: false,
      status: answer.status,
      message: `${url.host} answered HTTP ${answer.status}${excerpt ? `: ${excerpt}` : ""}`,
    };
  } catch (error) {
    return { ok: false, message: redactor(failureReason(error, url, timeoutMs)) };
  }
}

function buildRequest(
  integration: ResolvedIntegration,
  snapshot: MetricSnapshot,
  options: PushOptions,
): PushRequest {
  switch (integration.type) {
    case "otel":
      return otlpRequest(integration.settings, snapshot);
    case "datadog":
      return datadogRequest(integration.settings, snapshot, {
        previous: options.previous,
        apiUrl: options.datadogApiUrl,
      });
    case "grafana":
      return remoteWriteRequest(integration.settings, snapshot);
    case "influxdb":
      return influxRequest(integration.settings, snapshot);
    case "webhook":
      return webhookRequest(integration.settings, snapshot);
    default:
      throw new Error(`no push format for ${(integration as { type: string }).type}`);
  }
}

class PushTimeout extends Error {}

interface Answer {
  status: number;
  text: string;
}

/**
 * node:http with the guarded lookup: the metadata check runs on the addresses the socket really
 * connects to (see @gw/security url-guard). Redirects are not followed: a push answered with a
 * redirect is a misconfigured URL, reported with its status.
 */
function sendWithHttp(
  url: URL,
  built: PushRequest,
  signal: AbortSignal,
  allowMetadata: boolean,
): Promise<Answer> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const body = typeof built.body === "string" ? Buffer.from(built.body, "utf8") : Buffer.from(built.body);
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: "POST",
        signal,
        // A fresh connection per push: one push a minute gains nothing from keep-alive, and a
        // pooled socket the receiver has meanwhile closed would fail the push.
        agent: false,
        ...(allowMetadata ? {} : { lookup: guardedLookup }),
        headers: {
          ...built.headers,
          "content-length": String(body.length),
          "user-agent": "llm-gateway-metrics",
        },
      },
      (response) => readAnswer(response).then(resolve, reject),
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function readAnswer(response: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      if (size >= MAX_ANSWER_BYTES) return;
      size += chunk.length;
      chunks.push(chunk);
    });
    response.on("end", () =>
      resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
    );
    response.on("error", reject);
  });
}

async function sendWithFetch(
  fetchImpl: typeof fetch,
  url: URL,
  built: PushRequest,
  signal: AbortSignal,
): Promise<Answer> {
  const response = await fetchImpl(url, {
    method: "POST",
    headers: built.headers,
    body: typeof built.body === "string" ? built.body : Buffer.from(built.body),
    signal,
    redirect: "manual",
  });
  const text = await response.text();
  return { status: response.status, text: text.slice(0, MAX_ANSWER_BYTES) };
}

function failureReason(error: unknown, url: URL, timeoutMs: number): string {
  if (error instanceof PushTimeout) return `no answer from ${url.host} within ${timeoutMs / 1000} s`;
  if (error instanceof UrlRefusedError) return error.message;
  const code =
    (error as NodeJS.ErrnoException)?.code ?? (error as { cause?: NodeJS.ErrnoException })?.cause?.code;
  if (code === "EMETADATA") return (error as Error).message;
  if (code === "ECONNREFUSED") return `the connection to ${url.host} was refused`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `${url.hostname} does not resolve`;
  if (code === "ECONNRESET") return `${url.host} closed the connection`;
  return `the push to ${url.host} failed: ${errorText(error)}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Replaces every secret (4 characters or more: shorter values would mangle ordinary words). */
export function redact(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
  }
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join("[redacted]");
  return out;
}
