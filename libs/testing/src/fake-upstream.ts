import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicError, respondAnthropic } from "./anthropic-wire.js";
import { cohereError, respondCohere } from "./cohere-wire.js";
import type { FakeBehaviour, FakeKind, RecordedRequest } from "./fake-behaviour.js";
import { sendJson } from "./fake-stream.js";
import { geminiError, matchGeminiPath, respondGemini } from "./gemini-wire.js";
import { ollamaError, ollamaTags, respondOllama } from "./ollama-wire.js";
import { openAiError, respondOpenAiChat } from "./openai-chat-wire.js";

export type { FakeBehaviour, FakeKind, RecordedRequest } from "./fake-behaviour.js";

/**
 * A fake LLM upstream for tests and benchmarks. One server speaks every provider API the gateway
 * calls, each in its real wire format (JSON and streaming, usage, tool calls, error bodies), with
 * latency, status codes, 429 + Retry-After, and streams that stall or drop mid-way.
 *
 * | RecordedRequest.kind (provider kinds)  | routes                                                    | base URL        |
 * | -------------------------------------- | --------------------------------------------------------- | --------------- |
 * | openai (openai, xai, mistral, custom)  | POST /v1/chat/completions, GET /v1/models                 | `${url}/v1`     |
 * | anthropic                              | POST /v1/messages                                         | `${url}`        |
 * | gemini                                 | POST /v1beta/models/{m}:generateContent,                  | `${url}/v1beta` |
 * |                                        | POST /v1beta/models/{m}:streamGenerateContent[?alt=sse]   |                 |
 * | cohere                                 | POST /v2/chat                                             | `${url}`        |
 * | ollama                                 | POST /api/chat, GET /api/tags                             | `${url}`        |
 *
 * Like the real APIs, Anthropic wants a key (`x-api-key` or Bearer) and `anthropic-version` (and
 * `max_tokens` in the body), Gemini a key (`x-goog-api-key` or `?key=`), Cohere a Bearer key; the
 * OpenAI-compatible and Ollama routes check nothing. Anything else echoes what arrived
 * (`{ echo: { method, path, query, body } }`). The reply to a chat request is decided the same way for
 * every kind (`decideReply` in `fake-reply.ts`).
 */
export interface FakeUpstream {
  /** e.g. http://127.0.0.1:43123 */
  url: string;
  /** `${url}/v1`, the base URL an OpenAI client or a `custom` model uses. */
  baseUrl: string;
  /** The base URL a model of this provider kind should have to reach this fake. */
  baseUrlFor(kind: string): string;
  requests: RecordedRequest[];
  /** Behaviour of the next requests: a value, or a function of the request. */
  setBehaviour(behaviour: FakeBehaviour | ((request: RecordedRequest) => FakeBehaviour)): void;
  close(): Promise<void>;
}

const MAX_RECORDED = 10_000;

export async function startFakeUpstream(
  options: { host?: string; port?: number; behaviour?: FakeBehaviour; record?: boolean } = {},
): Promise<FakeUpstream> {
  let behaviourOf: (request: RecordedRequest) => FakeBehaviour = () => options.behaviour ?? {};
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const record = options.record ?? true;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const path = req.url ?? "/";
      const recorded: RecordedRequest = {
        method,
        path,
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks)),
        kind: kindOf(method, pathnameOf(path)),
        aborted: false,
      };
      if (record && requests.length < MAX_RECORDED) requests.push(recorded);
      res.on("close", () => {
        if (!res.writableFinished) recorded.aborted = true;
      });
      const behaviour = behaviourOf(recorded);
      const respond = () => handle(recorded, behaviour, res);
      if (behaviour.latencyMs) setTimeout(respond, behaviour.latencyMs);
      else respond();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve),
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    baseUrlFor: (kind) => fakeBaseUrl(url, kind),
    requests,
    setBehaviour(behaviour) {
      behaviourOf = typeof behaviour === "function" ? behaviour : () => behaviour;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The base URL a model of provider kind `kind` needs to reach a fake upstream at `url`. */
export function fakeBaseUrl(url: string, kind: string): string {
  switch (kind) {
    case "anthropic":
    case "cohere":
    case "ollama":
      return url;
    case "gemini":
      return `${url}/v1beta`;
    default:
      // openai, xai, mistral, custom: OpenAI-compatible.
      return `${url}/v1`;
  }
}

function pathnameOf(path: string): string {
  const query = path.indexOf("?");
  return query < 0 ? path : path.slice(0, query);
}

/** Which provider API a method and path belong to. */
export function kindOf(method: string, pathname: string): FakeKind {
  if (method === "POST") {
    if (pathname === "/v1/chat/completions") return "openai";
    if (pathname === "/v1/messages") return "anthropic";
    if (pathname === "/v2/chat") return "cohere";
    if (pathname === "/api/chat") return "ollama";
    if (matchGeminiPath(pathname)) return "gemini";
  } else if (method === "GET") {
    if (pathname === "/v1/models" || pathname.startsWith("/v1/models/")) return "openai";
    if (pathname === "/api/tags") return "ollama";
  }
  return "echo";
}

function parseBody(buffer: Buffer): unknown {
  if (buffer.length === 0) return undefined;
  try {
    return JSON.parse(buffer.toString("utf8"));
  } catch {
    return buffer.toString("utf8");
  }
}

function errorBody(kind: FakeKind, status: number, behaviour: FakeBehaviour): unknown {
  const message = behaviour.errorMessage;
  switch (kind) {
    case "anthropic":
      return anthropicError(status, message);
    case "gemini":
      return geminiError(status, message, behaviour.retryAfterSeconds);
    case "cohere":
      return cohereError(status, message);
    case "ollama":
      return ollamaError(status, message);
    default:
      return openAiError(status, message);
  }
}

function handle(request: RecordedRequest, behaviour: FakeBehaviour, res: ServerResponse): void {
  if (behaviour.status && behaviour.status >= 300) {
    const body = errorBody(request.kind, behaviour.status, behaviour);
    // Anthropic names the request in a header too.
    const requestId = (body as { request_id?: string }).request_id;
    sendJson(res, behaviour.status, body, behaviour, requestId ? { "request-id": requestId } : {});
    return;
  }
  switch (request.kind) {
    case "openai":
      if (request.method === "POST") respondOpenAiChat(request, behaviour, res);
      else
        sendJson(
          res,
          200,
          { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] },
          behaviour,
        );
      return;
    case "anthropic":
      respondAnthropic(request, behaviour, res);
      return;
    case "gemini":
      respondGemini(request, behaviour, res);
      return;
    case "cohere":
      respondCohere(request, behaviour, res);
      return;
    case "ollama":
      if (request.method === "POST") respondOllama(request, behaviour, res);
      else sendJson(res, 200, ollamaTags(), behaviour);
      return;
    default: {
      // Anything else echoes what arrived, so pass-through tests can check what was forwarded.
      const url = new URL(request.path, "http://fake");
      const query = Object.fromEntries(url.searchParams);
      sendJson(
        res,
        200,
        { echo: { method: request.method, path: request.path, query, body: request.body } },
        behaviour,
        { "x-fake-upstream": "echo" },
      );
    }
  }
}
