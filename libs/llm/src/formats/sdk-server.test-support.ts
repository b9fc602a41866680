import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CanonicalStreamEvent } from "../canonical/types.js";
import type { StreamEncoder, TraceInfo, WireError } from "./types.js";

/**
 * A local HTTP server the official SDKs talk to in the round-trip tests: each test sets the answer
 * (a JSON body or SSE text) and reads back the request the SDK sent.
 */
export interface Answer {
  status?: number;
  json?: unknown;
  /** SSE text; written in small pieces so the SDK's decoder sees frames split across chunks. */
  sse?: string;
}

export interface SdkServer {
  baseUrl: string;
  answer(answer: Answer): void;
  lastBody(): unknown;
  close(): Promise<void>;
}

export async function startSdkServer(): Promise<SdkServer> {
  let next: Answer = { json: {} };
  let last: unknown;
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    last = text ? JSON.parse(text) : undefined;
    if (next.sse !== undefined) {
      res.writeHead(next.status ?? 200, { "content-type": "text/event-stream" });
      const sse = next.sse;
      for (let at = 0; at < sse.length; at += 37) res.write(sse.slice(at, at + 37));
      res.end();
      return;
    }
    res.writeHead(next.status ?? 200, { "content-type": "application/json" });
    res.end(JSON.stringify(next.json));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    answer: (answer) => {
      next = answer;
    },
    lastBody: () => last,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const TRACE: TraceInfo = {
  model: "gpt-routed",
  provider: "openai",
  policies: ["cheapest"],
  costEstimate: 0.0012,
};

/** The whole SSE body an encoder writes for these events: trace (optional), events, then end. */
export function encodeStream(
  encoder: StreamEncoder,
  events: CanonicalStreamEvent[],
  options: { trace?: boolean; error?: WireError } = {},
): string {
  let out = options.trace === false ? "" : encoder.trace(TRACE);
  for (const event of events) out += encoder.event(event);
  return out + (options.error ? encoder.error(options.error) : encoder.end());
}

/** The SSE frames of a body as `{ event, data }` (data JSON-parsed unless it is `[DONE]`). */
export function parseSse(text: string): Array<{ event: string | undefined; data: unknown }> {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      let event: string | undefined;
      let data = "";
      for (const line of frame.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      return { event, data: data === "[DONE]" ? data : (JSON.parse(data) as unknown) };
    });
}

/** A stream with text, two parallel tool calls, a finish and usage (usage after finish). */
export const TOOL_STREAM: CanonicalStreamEvent[] = [
  { type: "start", id: "up-1", model: "gpt-upstream" },
  { type: "text", text: "Let me " },
  { type: "text", text: "check." },
  { type: "tool_call_start", index: 0, id: "call_a", name: "get_weather" },
  { type: "tool_call_delta", index: 0, arguments: '{"city":' },
  { type: "tool_call_delta", index: 0, arguments: '"Paris"}' },
  { type: "tool_call_start", index: 1, id: "call_b", name: "get_time" },
  { type: "tool_call_delta", index: 1, arguments: '{"tz":"CET"}' },
  { type: "finish", stopReason: "tool_calls" },
  { type: "usage", usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 100, cacheWriteTokens: 5 } },
];

export const TEXT_STREAM: CanonicalStreamEvent[] = [
  { type: "start", id: "up-2", model: "gpt-upstream" },
  // Usage before the finish: allowed, and the last one wins.
  { type: "usage", usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  { type: "text", text: "Hello" },
  { type: "text", text: ", world" },
  { type: "finish", stopReason: "stop" },
  { type: "usage", usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 0 } },
];
