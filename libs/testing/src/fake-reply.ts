import type { FakeBehaviour } from "./fake-behaviour.js";
import { countFakeTokens } from "./fake-tokens.js";

/**
 * What the fake upstream needs to know about a request, whatever its wire format. Each wire module
 * extracts it from the request body in its provider's own format.
 */
export interface RequestSummary {
  /** Text of the last user message (text parts joined with a space). */
  lastUserText: string;
  /** Image parts in that message. */
  images: number;
  /** True when the conversation ends with a user message that is not a tool result. */
  lastIsUser: boolean;
  /** The text of the tool result, when the conversation ends with one. */
  toolResult?: string;
  /** Names of the tools the request defines, in order. */
  tools: string[];
  /** The request asked for JSON output. */
  json: boolean;
  /** The request's output-token limit, if any. */
  maxTokens?: number;
  /** All text of the request (system, messages, tool results), for the input-token count. */
  allText: string;
}

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** `arguments` as JSON, as the providers that send a string send it. */
  argumentsJson: string;
}

/** The reply, provider-neutral; each wire module renders it in its own format. */
export interface FakeReply {
  /** Reply text; "" when the reply is a tool call. */
  text: string;
  toolCall?: FakeToolCall;
  /** `length`: the text was cut at the request's output-token limit. */
  finish: "stop" | "length" | "tool_call";
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export function emptySummary(): RequestSummary {
  return { lastUserText: "", images: 0, lastIsUser: false, tools: [], json: false, allText: "" };
}

/**
 * The reply to a request, the same for every provider kind:
 * - tools defined, the last message a user message and `toolCall !== false`: one call to the first tool
 *   with `toolArguments ?? { query: lastUserText }`;
 * - otherwise text: `behaviour.content` if set, else `Tool result: <text>` after a tool result, else
 *   `{"echo":"<last user text>"}` in JSON mode, else `Echo: <last user text>` (plus ` [images: N]`);
 * - text longer than the output-token limit is cut to it (finish `length`).
 */
export function decideReply(summary: RequestSummary, behaviour: FakeBehaviour): FakeReply {
  const inputTokens = countFakeTokens(summary.allText);
  const cachedTokens = behaviour.cachedTokens ?? 0;
  const firstTool = summary.tools[0];
  if (
    firstTool !== undefined &&
    summary.lastIsUser &&
    summary.toolResult === undefined &&
    behaviour.toolCall !== false
  ) {
    const args = behaviour.toolArguments ?? { query: summary.lastUserText };
    const argumentsJson = JSON.stringify(args);
    return {
      text: "",
      toolCall: { name: firstTool, arguments: args, argumentsJson },
      finish: "tool_call",
      inputTokens,
      outputTokens: countFakeTokens(argumentsJson),
      cachedTokens,
    };
  }
  let text: string;
  if (behaviour.content !== undefined) text = behaviour.content;
  else if (summary.toolResult !== undefined) text = `Tool result: ${summary.toolResult}`;
  else if (summary.json) text = JSON.stringify({ echo: summary.lastUserText });
  else {
    text = `Echo: ${summary.lastUserText}`;
    if (summary.images > 0) text += ` [images: ${summary.images}]`;
  }
  let finish: FakeReply["finish"] = "stop";
  let outputTokens = countFakeTokens(text);
  if (summary.maxTokens !== undefined && summary.maxTokens >= 0 && outputTokens > summary.maxTokens) {
    text = truncateToTokens(text, summary.maxTokens);
    outputTokens = summary.maxTokens;
    finish = "length";
  }
  return { text, finish, inputTokens, outputTokens, cachedTokens };
}

/** The first `tokens` fake tokens (words) of `text`, without trailing whitespace. */
export function truncateToTokens(text: string, tokens: number): string {
  if (tokens <= 0) return "";
  const words = text.trimStart().split(/(?<=\s)(?=\S)/);
  return words.slice(0, tokens).join("").trimEnd();
}

/** Word chunks of a reply text for streaming ("a b c" -> "a ", "b ", "c"); one "" chunk for "". */
export function wordChunks(text: string): string[] {
  return text.split(/(?<=\s)/);
}

/** Tool-call arguments JSON in 2+ deltas (one when it is a single character). */
export function argumentDeltas(json: string): string[] {
  if (json.length < 2) return [json];
  const parts = Math.min(3, json.length);
  const size = Math.ceil(json.length / parts);
  const deltas: string[] = [];
  for (let i = 0; i < json.length; i += size) deltas.push(json.slice(i, i + size));
  return deltas;
}

// ---- small helpers the wire modules share to read loosely-typed bodies ----

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * Text of a structured tool result (Gemini's `functionResponse.response`, a Cohere document): an
 * object with one string field gives that string (`{ "result": "21C" }` -> `21C`), anything else JSON.
 */
export function objectText(value: unknown): string {
  if (typeof value === "string") return value;
  const record = asRecord(value);
  if (record) {
    const values = Object.values(record);
    if (values.length === 1 && typeof values[0] === "string") return values[0];
  }
  return value === undefined || value === null ? "" : JSON.stringify(value);
}

/** A tool result that is a string, or text parts, or anything else (as JSON). */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const texts: string[] = [];
    for (const part of value) {
      const record = asRecord(part);
      const text = asString(record?.text);
      if (text !== undefined) texts.push(text);
      else if (typeof part === "string") texts.push(part);
      else if (record?.type === "document") texts.push(objectText(asRecord(record.document)?.data));
    }
    return texts.join(" ");
  }
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}
