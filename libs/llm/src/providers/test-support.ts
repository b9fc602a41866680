import assert from "node:assert/strict";
import { seededRandom } from "@gw/testing";
import type { CanonicalRequest, CanonicalStreamEvent } from "../canonical/types.js";
import type { ProviderAdapter, StreamDecoder, UpstreamTarget } from "./types.js";

/** Shared fixtures of the provider adapter tests (not used at run time). */

export { seededRandom };

/** Feeds `text` to a decoder in random pieces of 1..maxChunk characters, then ends it. */
export function feedInChunks<T>(
  decoder: { push(chunk: string): T[]; end(): T[] },
  text: string,
  seed: number,
  maxChunk = 17,
): T[] {
  const random = seededRandom(seed);
  const out: T[] = [];
  let offset = 0;
  while (offset < text.length) {
    const size = 1 + Math.floor(random() * maxChunk);
    out.push(...decoder.push(text.slice(offset, offset + size)));
    offset += size;
  }
  out.push(...decoder.end());
  return out;
}

/**
 * Decodes a whole provider stream at once and in random chunk sizes (many seeds, including one
 * character at a time); every way must give the same events, which are returned.
 */
export function decodeStream(adapter: ProviderAdapter, text: string): CanonicalStreamEvent[] {
  const once = normalizeIds(decodeWhole(adapter.createStreamDecoder(), text));
  for (let seed = 1; seed <= 25; seed++)
    assert.deepEqual(
      normalizeIds(feedInChunks(adapter.createStreamDecoder(), text, seed)),
      once,
      `chunking seed ${seed}`,
    );
  assert.deepEqual(
    normalizeIds(feedInChunks(adapter.createStreamDecoder(), text, 0, 1)),
    once,
    "one character at a time",
  );
  return once;
}

/** Ids the adapters make up (`call_` + 24 hex) are random; tests compare them as this placeholder. */
export const GENERATED_ID = "call_<generated>";
const MADE_UP = /^call_[0-9a-f]{24}$/;

export function normalizeIds<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, field) =>
    key === "id" && typeof field === "string" && MADE_UP.test(field) ? GENERATED_ID : field,
  ) as T;
}

function decodeWhole(decoder: StreamDecoder, text: string): CanonicalStreamEvent[] {
  return [...decoder.push(text), ...decoder.end()];
}

/** SSE framing of JSON payloads, the way the providers send them. */
export function sseFrames(frames: Array<{ event?: string; data: unknown }>, lineEnd = "\n"): string {
  return frames
    .map(({ event, data }) => {
      const payload = typeof data === "string" ? data : JSON.stringify(data);
      return `${event ? `event: ${event}${lineEnd}` : ""}data: ${payload}${lineEnd}${lineEnd}`;
    })
    .join("");
}

export const TARGET: UpstreamTarget = {
  baseUrl: "https://upstream.example/v1",
  upstreamModel: "upstream-model",
  apiKey: "sk-test",
};

export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BAAAMBAQAY3Y2wAAAAAElFTkSuQmCC";
export const JPEG_BASE64 = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U";

/**
 * A request using everything the hub carries: system prompt, multi-turn history with a tool call
 * and its result, images as a remote URL, a `data:` URL and raw base64, tools with a forced
 * choice, JSON output, stop sequences, end user, max tokens, sampling, streaming.
 */
export function richRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    model: "client-model",
    system: "You are a weather assistant.",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "What is the weather in Paris? Here is the sky:" },
          { type: "image", url: "https://example.com/sky.png" },
          { type: "image", url: `data:image/jpeg;base64,${JPEG_BASE64}` },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_call", id: "call_abc123", name: "get_weather", arguments: '{"city":"Paris"}' },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolCallId: "call_abc123",
            content: [{ type: "text", text: '{"temp_c":18}' }],
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Answer in JSON. This one too:" },
          { type: "image", base64: PNG_BASE64, mediaType: "image/png" },
        ],
      },
    ],
    tools: [
      {
        name: "get_weather",
        description: "Current weather for a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string", description: "City name" } },
          required: ["city"],
          additionalProperties: false,
        },
      },
    ],
    toolChoice: { type: "required" },
    maxTokens: 256,
    temperature: 0.2,
    topP: 0.9,
    stop: ["END"],
    responseFormat: { type: "json_object" },
    user: "user-42",
    stream: true,
    ...overrides,
  };
}

/** The JSON body of a built request. */
export function bodyOf(request: { body: string }): Record<string, unknown> {
  return JSON.parse(request.body) as Record<string, unknown>;
}

/** Bodies of the wrong shape every parseResponse must refuse with an Error, never a TypeError. */
export const WRONG_SHAPES: unknown[] = [null, undefined, "text", 42, [], [1, 2], { unrelated: true }];

export function assertRefusesWithClearError(adapter: ProviderAdapter, bodies: unknown[]): void {
  for (const body of [...WRONG_SHAPES, ...bodies]) {
    assert.throws(
      () => adapter.parseResponse(body),
      (error: unknown) =>
        error instanceof Error &&
        !(error instanceof TypeError) &&
        error.message.startsWith(`${adapter.kind}: `),
      `body ${JSON.stringify(body)}`,
    );
  }
}
