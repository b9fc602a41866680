import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "../wait-for.js";
import type { DecodeResult, ReceivedAuth, ReceivedPush } from "./types.js";

/** What a receiver answers after recording a request (the success answer of its type by default). */
export interface ReceiverAnswer {
  status: number;
  body?: string | ((push: ReceivedPush) => string);
  contentType?: string;
}

export interface MetricReceiver {
  /** http://127.0.0.1:<port>: the base URL (each type documents the path it serves). */
  url: string;
  /** Every request, decoded, in arrival order (stalled ones included). */
  pushes: ReceivedPush[];
  /** Answer every following request with this status and body (a function sees the request). */
  fail(status: number, body?: ReceiverAnswer["body"]): void;
  /** Hold every following request open without answering (until reset or close). */
  stall(): void;
  /** Answer every following request after `ms`. */
  delay(ms: number): void;
  /** Back to decoding and answering success at once; forget the recorded pushes. */
  reset(): void;
  /** Resolves when at least `count` pushes were received. */
  waitForPushes(count?: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

export interface ReceiverSpec {
  /** Decodes a request; a failed decode is answered with its status, like the real service. */
  decode(request: {
    path: string;
    query: URLSearchParams;
    headers: IncomingMessage["headers"];
    raw: Buffer;
  }): DecodeResult;
  success: ReceiverAnswer;
}

export function parseAuth(headers: IncomingMessage["headers"]): ReceivedAuth {
  const auth: ReceivedAuth = {};
  const authorization = headers.authorization;
  if (authorization) {
    auth.authorization = authorization;
    const [scheme = "", ...rest] = authorization.split(" ");
    const credentials = rest.join(" ");
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(credentials, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      auth.basic = { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    } else if (/^token$/i.test(scheme)) auth.token = credentials;
    else if (/^bearer$/i.test(scheme)) auth.bearer = credentials;
  }
  const apiKey = headers["dd-api-key"];
  if (typeof apiKey === "string") auth.apiKey = apiKey;
  const signature = headers["x-service-signature"];
  if (typeof signature === "string") auth.signature = signature;
  return auth;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/** One fake receiver: a node:http server that records, decodes and answers as told. */
export async function startReceiver(spec: ReceiverSpec): Promise<MetricReceiver> {
  const pushes: ReceivedPush[] = [];
  const stalled = new Set<ServerResponse>();
  let override: ReceiverAnswer | null = null;
  let mode: { kind: "answer" } | { kind: "stall" } | { kind: "delay"; ms: number } = { kind: "answer" };

  const answer = (response: ServerResponse, push: ReceivedPush, chosen: ReceiverAnswer) => {
    const body = typeof chosen.body === "function" ? chosen.body(push) : (chosen.body ?? "");
    response.writeHead(
      chosen.status,
      body ? { "content-type": chosen.contentType ?? "application/json" } : {},
    );
    response.end(body);
  };

  const server = createServer(async (request, response) => {
    const raw = await readBody(request);
    const url = new URL(request.url ?? "/", "http://receiver");
    const push: ReceivedPush = {
      method: request.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      auth: parseAuth(request.headers),
      raw,
      metrics: [],
    };
    let result: DecodeResult;
    try {
      result =
        request.method === "POST"
          ? spec.decode({ path: url.pathname, query: url.searchParams, headers: request.headers, raw })
          : { ok: false, status: 405, error: "only POST is accepted" };
    } catch (error) {
      result = { ok: false, status: 400, error: (error as Error).message };
    }
    if (result.metrics) push.metrics = result.metrics;
    if (result.signatureValid !== undefined) push.signatureValid = result.signatureValid;
    if (result.ok) {
      if (result.resource) push.resource = result.resource;
      if (result.scope !== undefined) push.scope = result.scope;
    } else push.error = result.error;
    pushes.push(push);
    const current = mode;
    if (current.kind === "stall") {
      stalled.add(response); // held open until reset/close
      return;
    }
    if (current.kind === "delay") await new Promise((resolve) => setTimeout(resolve, current.ms));
    if (override) return answer(response, push, override);
    if (!result.ok)
      return answer(response, push, { status: result.status, body: JSON.stringify({ error: result.error }) });
    answer(response, push, spec.success);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    pushes,
    fail(status, body) {
      override = { status, body };
    },
    stall() {
      mode = { kind: "stall" };
    },
    delay(ms) {
      mode = { kind: "delay", ms };
    },
    reset() {
      override = null;
      mode = { kind: "answer" };
      pushes.length = 0;
      for (const response of stalled) response.socket?.destroy();
      stalled.clear();
    },
    waitForPushes(count = 1, timeoutMs = 10_000) {
      return waitFor(() => (pushes.length >= count ? pushes : undefined), {
        timeoutMs,
        what: `${count} push(es) at ${port}`,
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
