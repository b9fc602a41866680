import type { CanonicalResponse, StreamDecoder, StreamEncoder } from "@gw/llm";
import { type CallUsage, usageFromAnthropic, usageFromCanonical, usageFromOpenAi } from "./usage.js";

/**
 * A relay turns the upstream's streamed text into what the client receives, chunk by chunk (no
 * buffering beyond a partial line), while tallying usage and produced text so a stream that ends
 * early is still billed for what was produced.
 */
export interface StreamRelay {
  /** Upstream text in (already UTF-8 decoded across chunk boundaries), client text out. */
  push(text: string): string;
  /** The upstream body ended: what is still buffered. */
  flush(): string;
  /** The stream reached its natural end (`[DONE]`, `message_stop`, a finish reason). */
  readonly completed: boolean;
  /** Usage reported by the provider, if it reported any. */
  usage(): CallUsage | undefined;
  /** Text (and tool arguments) produced so far, to count output when no usage arrived. */
  producedText(): string;
  /** The translated relay writes the client format's terminal events; native ones relayed the upstream's. */
  terminal(): string;
  /** The assembled response (translated relay only). */
  snapshot(): CanonicalResponse | undefined;
}

/** Splits text into complete lines, keeping the partial tail for the next push. */
class LineBuffer {
  private carry = "";
  lines(text: string): string[] {
    const joined = this.carry + text;
    const lastBreak = joined.lastIndexOf("\n");
    if (lastBreak === -1) {
      this.carry = joined;
      return [];
    }
    this.carry = joined.slice(lastBreak + 1);
    return joined.slice(0, lastBreak).split("\n");
  }
  rest(): string {
    const rest = this.carry;
    this.carry = "";
    return rest;
  }
}

const dataOf = (line: string): string | undefined =>
  line.startsWith("data:") ? line.slice(line.charCodeAt(5) === 32 ? 6 : 5).trimEnd() : undefined;

/**
 * Chat-completions from an OpenAI-compatible upstream, relayed line by line. Content chunks get
 * `type: "content"` and `delta: "<text>"` beside the standard fields (DESIGN.md section 4); only
 * lines that can carry content or usage are parsed.
 */
export function nativeChatRelay(): StreamRelay {
  const buffer = new LineBuffer();
  const produced: string[] = [];
  let usage: CallUsage | undefined;
  let completed = false;
  const rewrite = (line: string): string => {
    const payload = dataOf(line);
    if (payload === undefined) return line;
    if (payload === "[DONE]") {
      completed = true;
      return line;
    }
    const hasUsage = payload.includes('"usage":{');
    const hasContent = payload.includes('"content":"') || payload.includes('"arguments":"');
    if (!hasUsage && !hasContent) return line;
    let chunk: {
      type?: unknown;
      usage?: unknown;
      choices?: { delta?: { content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] } }[];
    };
    try {
      chunk = JSON.parse(payload);
    } catch {
      return line; // relayed as is; it just does not count
    }
    if (hasUsage) usage = usageFromOpenAi(chunk.usage) ?? usage;
    const delta = chunk.choices?.[0]?.delta;
    for (const call of delta?.tool_calls ?? [])
      if (typeof call.function?.arguments === "string") produced.push(call.function.arguments);
    const content = delta?.content;
    if (typeof content !== "string" || content === "") return line;
    produced.push(content);
    if (chunk.type !== undefined || !payload.startsWith("{")) return line;
    return `data: {"type":"content","delta":${JSON.stringify(content)},${payload.slice(1)}`;
  };
  const render = (lines: string[]) => (lines.length === 0 ? "" : `${lines.map(rewrite).join("\n")}\n`);
  return {
    push: (text) => render(buffer.lines(text)),
    flush: () => {
      const rest = buffer.rest();
      return rest ? rewrite(rest) : "";
    },
    get completed() {
      return completed;
    },
    usage: () => usage,
    producedText: () => produced.join(""),
    terminal: () => "",
    snapshot: () => undefined,
  };
}

/** Messages-API SSE from an anthropic upstream: relayed unchanged, read for usage and text. */
export function nativeMessagesRelay(): StreamRelay {
  const buffer = new LineBuffer();
  const produced: string[] = [];
  let usage: CallUsage | undefined;
  let completed = false;
  const inspect = (line: string) => {
    const payload = dataOf(line);
    if (payload === undefined) return;
    if (payload.includes('"message_stop"')) completed = true;
    const relevant =
      payload.includes('"message_start"') ||
      payload.includes('"message_delta"') ||
      payload.includes('"content_block_delta"');
    if (!relevant) return;
    try {
      const event = JSON.parse(payload) as {
        type?: string;
        message?: { usage?: unknown };
        usage?: unknown;
        delta?: { type?: string; text?: unknown; partial_json?: unknown };
      };
      if (event.type === "message_start") usage = usageFromAnthropic(event.message?.usage, usage) ?? usage;
      else if (event.type === "message_delta") usage = usageFromAnthropic(event.usage, usage) ?? usage;
      else if (typeof event.delta?.text === "string") produced.push(event.delta.text);
      else if (typeof event.delta?.partial_json === "string") produced.push(event.delta.partial_json);
    } catch {
      // relayed as is
    }
  };
  return {
    push: (text) => {
      for (const line of buffer.lines(text)) inspect(line);
      return text;
    },
    flush: () => {
      inspect(buffer.rest());
      return "";
    },
    get completed() {
      return completed;
    },
    usage: () => usage,
    producedText: () => produced.join(""),
    terminal: () => "",
    snapshot: () => undefined,
  };
}

/** Any other pair: the provider's stream decoded into canonical events, encoded in the client's format. */
export function translatedRelay(decoder: StreamDecoder, encoder: StreamEncoder): StreamRelay {
  let completed = false;
  let sawUsage = false;
  const encode = (events: ReturnType<StreamDecoder["push"]>) => {
    let out = "";
    for (const event of events) {
      if (event.type === "finish") completed = true;
      else if (event.type === "usage") sawUsage = true;
      out += encoder.event(event);
    }
    return out;
  };
  return {
    push: (text) => encode(decoder.push(text)),
    flush: () => encode(decoder.end()),
    get completed() {
      return completed;
    },
    usage: () => (sawUsage ? usageFromCanonical(encoder.snapshot().usage) : undefined),
    producedText: () =>
      encoder
        .snapshot()
        .content.map((part) => (part.type === "text" ? part.text : part.arguments))
        .join(""),
    terminal: () => encoder.end(),
    snapshot: () => encoder.snapshot(),
  };
}
