import type { CanonicalResponse, CanonicalStreamEvent } from "../canonical/types.js";
import { StreamAccumulator } from "./accumulator.js";
import {
  type FunctionCallItem,
  functionCallItemId,
  type MessageItem,
  messageItemId,
  type OutputItem,
  outputText,
  responseObject,
  terminalState,
} from "./responses-render.js";
import { sseEvent } from "./sse.js";
import type { RenderContext, StreamEncoder, TraceInfo, WireError } from "./types.js";

/**
 * The `type` inside the trace event's data. The openai-node `responses.stream()` helper (v6)
 * throws on any event type it does not know ("Unhandled response stream event") and on anything
 * before `response.created`; `keepalive` is the one state-free type it accepts and ignores. The SSE
 * event name stays `trace` and `object: "trace"` marks the payload, so trace-aware clients still
 * find it. See the SDK's lib/responses/ResponseAccumulator.
 */
export const RESPONSES_TRACE_DATA_TYPE = "keepalive";

/**
 * Canonical events -> Responses API SSE (`event: <type>` + `data: {type, sequence_number, ...}`):
 * response.created / in_progress, then per output item `output_item.added`, its content or
 * argument deltas and `.done` events, then `response.completed` (or `response.incomplete`).
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private readonly accumulator: StreamAccumulator;
  private sequence = 0;
  private created = false;
  private closed = false;
  /** Every output item in output_index order, updated as it streams (the final `output`). */
  private readonly items: OutputItem[] = [];
  private openMessage: { item: MessageItem; index: number } | undefined;
  /** Every function-call item by the event's tool-call index; `openCall` is the one streaming. */
  private readonly calls = new Map<number, { item: FunctionCallItem; index: number }>();
  private openCall: { item: FunctionCallItem; index: number } | undefined;

  constructor(private readonly context: RenderContext) {
    this.accumulator = new StreamAccumulator(context);
  }

  /** After `response.created` (SDKs require it first), so it opens the response if needed. */
  trace(info: TraceInfo): string {
    if (this.closed) return "";
    return (
      this.open() +
      sseEvent("trace", {
        type: RESPONSES_TRACE_DATA_TYPE,
        sequence_number: this.sequence++,
        object: "trace",
        model: info.model,
        provider: info.provider,
        policies: info.policies,
        costEstimate: info.costEstimate,
      })
    );
  }

  event(event: CanonicalStreamEvent): string {
    if (this.closed) return "";
    this.accumulator.apply(event);
    const prefix = this.open();
    switch (event.type) {
      case "start":
      case "usage":
        return prefix;
      case "text":
        return event.text === "" ? prefix : prefix + this.text(event.text);
      case "tool_call_start":
        return prefix + this.startCall(event.index, event.id, event.name);
      case "tool_call_delta": {
        const call = this.calls.get(event.index);
        if (!call || event.arguments === "") return prefix;
        // A late delta of an earlier, already finished call (interleaved parallel calls) still
        // goes out under that call's output_index: the SDK appends by index, nothing is lost.
        call.item.arguments += event.arguments;
        return (
          prefix +
          this.frame("response.function_call_arguments.delta", {
            item_id: call.item.id,
            output_index: call.index,
            delta: event.arguments,
          })
        );
      }
      case "finish":
        return prefix + this.closeItems();
    }
  }

  end(): string {
    if (this.closed) return "";
    const out = this.open() + this.closeItems();
    this.closed = true;
    const { status, incompleteDetails } = terminalState(this.accumulator.stopReason);
    const response = responseObject({
      context: this.context,
      status,
      incompleteDetails,
      output: this.items,
      usage: this.accumulator.knownUsage ?? null,
    });
    const type = status === "completed" ? "response.completed" : "response.incomplete";
    return out + this.frame(type, { response });
  }

  /**
   * `error` carries both the documented flat fields (code, message, param) and the nested `error`
   * object the live API sends; openai-node throws APIError on a data frame with an `error` key.
   * `response.failed` follows as the terminal event for clients that read on.
   */
  error(error: WireError): string {
    if (this.closed) return "";
    this.closed = true;
    this.accumulator.fail();
    const out = this.frame("error", {
      code: error.code,
      message: error.message,
      param: null,
      error: { type: error.type, code: error.code, message: error.message, param: null },
    });
    for (const item of this.items) if (item.status === "in_progress") item.status = "incomplete";
    const response = responseObject({
      context: this.context,
      status: "failed",
      output: this.items,
      usage: this.accumulator.knownUsage ?? null,
      error: { code: error.code, message: error.message },
    });
    return out + this.frame("response.failed", { response });
  }

  snapshot(): CanonicalResponse {
    return this.accumulator.snapshot();
  }

  private frame(type: string, payload: Record<string, unknown>): string {
    return sseEvent(type, { type, sequence_number: this.sequence++, ...payload });
  }

  private open(): string {
    if (this.created) return "";
    this.created = true;
    const response = responseObject({
      context: this.context,
      status: "in_progress",
      output: [],
      usage: null,
    });
    return this.frame("response.created", { response }) + this.frame("response.in_progress", { response });
  }

  private text(text: string): string {
    let out = "";
    if (!this.openMessage) {
      out += this.closeCall();
      const index = this.items.length;
      const item: MessageItem = {
        type: "message",
        id: messageItemId(this.context, index),
        status: "in_progress",
        role: "assistant",
        content: [],
      };
      this.items.push(item);
      this.openMessage = { item, index };
      out += this.frame("response.output_item.added", { output_index: index, item });
      const part = outputText("");
      item.content.push(part);
      out += this.frame("response.content_part.added", {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part,
      });
    }
    const { item, index } = this.openMessage;
    const part = item.content[0];
    if (part) part.text += text;
    return (
      out +
      this.frame("response.output_text.delta", {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        delta: text,
        logprobs: [],
      })
    );
  }

  /** Items stream one after another, as the API sends them: a new call finishes what is open. */
  private startCall(eventIndex: number, callId: string, name: string): string {
    const out = this.closeItems();
    const index = this.items.length;
    const item: FunctionCallItem = {
      type: "function_call",
      id: functionCallItemId(this.context, index),
      call_id: callId,
      name,
      arguments: "",
      status: "in_progress",
    };
    this.items.push(item);
    this.openCall = { item, index };
    this.calls.set(eventIndex, this.openCall);
    return out + this.frame("response.output_item.added", { output_index: index, item });
  }

  private closeMessage(): string {
    const open = this.openMessage;
    if (!open) return "";
    this.openMessage = undefined;
    const { item, index } = open;
    const part = item.content[0] ?? outputText("");
    item.status = "completed";
    return (
      this.frame("response.output_text.done", {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        text: part.text,
        logprobs: [],
      }) +
      this.frame("response.content_part.done", {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part,
      }) +
      this.frame("response.output_item.done", { output_index: index, item })
    );
  }

  private closeCall(): string {
    const call = this.openCall;
    if (!call) return "";
    this.openCall = undefined;
    call.item.status = "completed";
    return (
      this.frame("response.function_call_arguments.done", {
        item_id: call.item.id,
        output_index: call.index,
        name: call.item.name,
        arguments: call.item.arguments,
      }) + this.frame("response.output_item.done", { output_index: call.index, item: call.item })
    );
  }

  /** At most one item is open at a time. */
  private closeItems(): string {
    return this.closeMessage() + this.closeCall();
  }
}
