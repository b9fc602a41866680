import type { ServerResponse } from "node:http";
import type { FakeBehaviour, RecordedRequest } from "./fake-behaviour.js";
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  decideReply,
  emptySummary,
  type RequestSummary,
  resultText,
  wordChunks,
} from "./fake-reply.js";
import { type StreamFrame, sendJson, sendStream } from "./fake-stream.js";

/**
 * The Ollama native API wire format (`POST /api/chat`, `GET /api/tags`): NDJSON streaming by default,
 * one JSON object when `stream: false`.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md
 */

/** Ollama's error body. */
export function ollamaError(status: number, message?: string) {
  const byStatus: Record<number, string> = {
    400: "invalid request",
    404: "model not found, try pulling it first",
    429: "too many requests",
    500: "llama runner process has terminated",
    503: "server busy, please try again. maximum pending requests exceeded",
  };
  return { error: message ?? byStatus[status] ?? `upstream error ${status}` };
}

/** The provider-neutral summary of an /api/chat request body. */
export function summarizeOllama(body: unknown): RequestSummary {
  const request = asRecord(body) ?? {};
  const summary = emptySummary();
  const texts: string[] = [];
  let lastRole: string | undefined;
  for (const item of asArray(request.messages)) {
    const message = asRecord(item);
    if (!message) continue;
    const role = asString(message.role);
    lastRole = role;
    if (role === "tool") {
      const text = resultText(message.content);
      texts.push(text);
      summary.toolResult = text;
      continue;
    }
    summary.toolResult = undefined;
    const text = asString(message.content) ?? "";
    if (text) texts.push(text);
    if (role === "user") {
      summary.lastUserText = text;
      summary.images = asArray(message.images).length;
    }
  }
  summary.lastIsUser = lastRole === "user";
  summary.allText = texts.join(" ");
  for (const tool of asArray(request.tools)) {
    const name = asString(asRecord(asRecord(tool)?.function)?.name);
    if (name !== undefined) summary.tools.push(name);
  }
  // `format` is "json" or a JSON schema object.
  summary.json = request.format === "json" || asRecord(request.format) !== undefined;
  summary.maxTokens = asNumber(asRecord(request.options)?.num_predict);
  return summary;
}

/** GET /api/tags: one local model. */
export function ollamaTags() {
  return {
    models: [
      {
        name: "fake-model:latest",
        model: "fake-model:latest",
        modified_at: "2025-01-01T00:00:00.000000000Z",
        size: 4_661_224_676,
        digest: "0".repeat(64),
        details: {
          parent_model: "",
          format: "gguf",
          family: "llama",
          families: ["llama"],
          parameter_size: "8.0B",
          quantization_level: "Q4_0",
        },
      },
    ],
  };
}

/** POST /api/chat. */
export function respondOllama(request: RecordedRequest, behaviour: FakeBehaviour, res: ServerResponse): void {
  const body = asRecord(request.body);
  if (!body || typeof body.model !== "string" || body.model === "") {
    sendJson(res, 400, ollamaError(400, body ? "model is required" : "invalid request body"), behaviour);
    return;
  }
  const reply = decideReply(summarizeOllama(body), behaviour);
  const model = body.model;
  const createdAt = () => new Date().toISOString();
  const message = reply.toolCall
    ? {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments } }],
      }
    : { role: "assistant", content: reply.text };
  // Durations in nanoseconds, as Ollama reports them.
  const stats = {
    done_reason: reply.finish === "length" ? "length" : "stop",
    total_duration: 120_000_000,
    load_duration: 10_000_000,
    prompt_eval_count: reply.inputTokens,
    prompt_eval_duration: 30_000_000,
    eval_count: reply.outputTokens,
    eval_duration: 80_000_000,
  };
  if (body.stream === false) {
    sendJson(res, 200, { model, created_at: createdAt(), message, done: true, ...stats }, behaviour);
    return;
  }
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const frames: StreamFrame[] = [];
  if (reply.toolCall) {
    // Ollama sends a tool call whole, in one line, before the final one.
    frames.push({ text: line({ model, created_at: createdAt(), message, done: false }), content: true });
  } else {
    for (const word of wordChunks(reply.text))
      frames.push({
        text: line({
          model,
          created_at: createdAt(),
          message: { role: "assistant", content: word },
          done: false,
        }),
        content: true,
      });
  }
  frames.push({
    text: line({
      model,
      created_at: createdAt(),
      message: { role: "assistant", content: "" },
      done: true,
      ...stats,
    }),
    content: false,
  });
  sendStream(res, behaviour, "application/x-ndjson", frames);
}
