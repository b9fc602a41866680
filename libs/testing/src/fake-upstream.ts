import { randomUUID } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { chatMessagesText, countFakeTokens } from "./fake-tokens.js";
import { chatChunk, chatCompletion, chatUsage, chatUsageChunk, openAiError } from "./openai-chat-wire.js";

/**
 * A fake OpenAI-compatible upstream for tests and benchmarks: the real chat-completions wire format
 * (JSON and SSE, usage, errors), with latency, status codes, 429 + Retry-After, and streams that
 * stall or drop mid-way. Later issues add the other provider kinds beside it.
 */
export interface FakeBehaviour {
  /** Non-2xx: answer with OpenAI's error body for that status. */
  status?: number;
  /** Seconds in the `retry-after` header (with status 429). */
  retryAfterSeconds?: number;
  /** Delay before the response headers, ms. */
  latencyMs?: number;
  /** Reply text; default "Hello from the fake upstream." */
  content?: string;
  /** Delay between stream chunks, ms (0 = write them in one go). */
  chunkDelayMs?: number;
  /** Stream: send this many content chunks, then hang without ending (until the client aborts). */
  stallAfterChunks?: number;
  /** Stream: destroy the connection after this many content chunks. */
  dropAfterChunks?: number;
  /** Cached prompt tokens to report in usage. */
  cachedTokens?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** True when the client went away before the response finished. */
  aborted: boolean;
}

export interface FakeUpstream {
  /** e.g. http://127.0.0.1:43123 */
  url: string;
  /** `${url}/v1`, the base URL an OpenAI client or a `custom` model uses. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Behaviour of the next requests: a value, or a function of the request. */
  setBehaviour(behaviour: FakeBehaviour | ((request: RecordedRequest) => FakeBehaviour)): void;
  close(): Promise<void>;
}

const DEFAULT_CONTENT = "Hello from the fake upstream.";
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
      const recorded: RecordedRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks)),
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

function parseBody(buffer: Buffer): unknown {
  if (buffer.length === 0) return undefined;
  try {
    return JSON.parse(buffer.toString("utf8"));
  } catch {
    return buffer.toString("utf8");
  }
}

function handle(request: RecordedRequest, behaviour: FakeBehaviour, res: ServerResponse): void {
  if (behaviour.status && behaviour.status >= 300) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (behaviour.retryAfterSeconds !== undefined)
      headers["retry-after"] = String(behaviour.retryAfterSeconds);
    res.writeHead(behaviour.status, headers).end(JSON.stringify(openAiError(behaviour.status)));
    return;
  }
  if (request.method === "GET" && request.path.startsWith("/v1/models")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        object: "list",
        data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }],
      }),
    );
    return;
  }
  if (request.method !== "POST" || !request.path.startsWith("/v1/chat/completions")) {
    // Anything else echoes what arrived, so pass-through tests can check what was forwarded.
    res.writeHead(200, { "content-type": "application/json", "x-fake-upstream": "echo" });
    res.end(JSON.stringify({ echo: { method: request.method, path: request.path, body: request.body } }));
    return;
  }
  const body = (request.body ?? {}) as {
    model?: string;
    messages?: unknown;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
  const content = behaviour.content ?? DEFAULT_CONTENT;
  const model = typeof body.model === "string" ? body.model : "fake-model";
  const usage = chatUsage(
    countFakeTokens(chatMessagesText(body.messages)),
    countFakeTokens(content),
    behaviour.cachedTokens ?? 0,
  );
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(chatCompletion({ id, model, content, usage, created })));
    return;
  }
  streamCompletion(res, behaviour, {
    id,
    model,
    created,
    content,
    usage,
    includeUsage: body.stream_options?.include_usage === true,
  });
}

function streamCompletion(
  res: ServerResponse,
  behaviour: FakeBehaviour,
  reply: {
    id: string;
    model: string;
    created: number;
    content: string;
    usage: ReturnType<typeof chatUsage>;
    includeUsage: boolean;
  },
): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const base = {
    id: reply.id,
    model: reply.model,
    created: reply.created,
    withUsageField: reply.includeUsage,
  };
  const words = reply.content.split(/(?<=\s)/);
  const events: string[] = [
    JSON.stringify(chatChunk({ ...base, delta: { role: "assistant", content: "", refusal: null } })),
  ];
  for (const word of words) events.push(JSON.stringify(chatChunk({ ...base, delta: { content: word } })));
  events.push(JSON.stringify(chatChunk({ ...base, delta: {}, finishReason: "stop" })));
  if (reply.includeUsage) events.push(JSON.stringify(chatUsageChunk({ ...reply, usage: reply.usage })));
  events.push("[DONE]");

  let index = 0;
  const contentChunksSent = () => Math.max(0, Math.min(index - 1, words.length));
  const writeNext = (): void => {
    while (index < events.length) {
      if (behaviour.stallAfterChunks !== undefined && contentChunksSent() >= behaviour.stallAfterChunks)
        return;
      if (behaviour.dropAfterChunks !== undefined && contentChunksSent() >= behaviour.dropAfterChunks) {
        res.socket?.destroy();
        return;
      }
      res.write(`data: ${events[index++]}\n\n`);
      if (behaviour.chunkDelayMs) {
        setTimeout(writeNext, behaviour.chunkDelayMs);
        return;
      }
    }
    res.end();
  };
  writeNext();
}
