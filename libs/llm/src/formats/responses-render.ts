import type {
  CanonicalResponse,
  CanonicalUsage,
  ResponseFormat,
  StopReason,
  TextPart,
  ToolCallPart,
  ToolChoice,
} from "../canonical/types.js";
import type { RenderContext } from "./types.js";

/**
 * Canonical response -> the Responses API `Response` object, shared by the JSON renderer and the
 * stream encoder (whose `response.created` / `response.completed` events carry the same object).
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface OutputText {
  type: "output_text";
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface MessageItem {
  type: "message";
  id: string;
  status: "in_progress" | "completed" | "incomplete";
  role: "assistant";
  content: OutputText[];
}

export interface FunctionCallItem {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: "in_progress" | "completed" | "incomplete";
}

export type OutputItem = MessageItem | FunctionCallItem;

/** Output item ids derive from the response id, so a stored response renders the same every time. */
export function messageItemId(context: RenderContext, outputIndex: number): string {
  return `msg_${idBase(context)}_${outputIndex}`;
}

export function functionCallItemId(context: RenderContext, outputIndex: number): string {
  return `fc_${idBase(context)}_${outputIndex}`;
}

function idBase(context: RenderContext): string {
  return context.id.startsWith("resp_") ? context.id.slice(5) : context.id;
}

export function outputText(text: string): OutputText {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

/** Running text becomes one message item; each tool call its own function_call item. */
export function outputItems(content: Array<TextPart | ToolCallPart>, context: RenderContext): OutputItem[] {
  const items: OutputItem[] = [];
  for (const part of content) {
    const last = items.at(-1);
    if (part.type === "text") {
      if (last?.type === "message" && last.content[0]) last.content[0].text += part.text;
      else {
        items.push({
          type: "message",
          id: messageItemId(context, items.length),
          status: "completed",
          role: "assistant",
          content: [outputText(part.text)],
        });
      }
    } else {
      items.push({
        type: "function_call",
        id: functionCallItemId(context, items.length),
        call_id: part.id,
        name: part.name,
        arguments: part.arguments,
        status: "completed",
      });
    }
  }
  return items;
}

/** `length` and `content_filter` end a response as incomplete, with the reason the API uses. */
export function terminalState(reason: StopReason): {
  status: "completed" | "incomplete";
  incompleteDetails: { reason: "max_output_tokens" | "content_filter" } | null;
} {
  if (reason === "length")
    return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
  if (reason === "content_filter")
    return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
  return { status: "completed", incompleteDetails: null };
}

/** OpenAI counts cached tokens inside input_tokens, as the hub does. */
export function responsesUsage(usage: CanonicalUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function responseObject(options: {
  context: RenderContext;
  status: ResponseStatus;
  output: OutputItem[];
  usage: CanonicalUsage | null;
  incompleteDetails?: { reason: string } | null;
  error?: { code: string; message: string } | null;
}) {
  const { context } = options;
  const request = context.request;
  return {
    id: context.id,
    object: "response",
    created_at: context.created,
    status: options.status,
    background: false,
    error: options.error ?? null,
    incomplete_details: options.incompleteDetails ?? null,
    instructions: context.instructions ?? null,
    max_output_tokens: request?.maxTokens ?? null,
    metadata: {},
    model: context.model,
    output: options.output,
    parallel_tool_calls: true,
    previous_response_id: context.previousResponseId ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    temperature: request?.temperature ?? null,
    text: { format: textFormat(request?.responseFormat) },
    tool_choice: toolChoice(request?.toolChoice),
    tools: (request?.tools ?? []).map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters,
      // The hub does not keep `strict`; null says "not known" in the API's own terms.
      strict: null,
    })),
    top_p: request?.topP ?? null,
    truncation: "disabled",
    usage: options.usage ? responsesUsage(options.usage) : null,
    ...(request?.user !== undefined ? { user: request.user } : {}),
  };
}

function textFormat(format: ResponseFormat | undefined) {
  if (format?.type !== "json_schema") return { type: format?.type ?? "text" };
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    strict: format.strict ?? null,
  };
}

function toolChoice(choice: ToolChoice | undefined) {
  if (!choice) return "auto";
  return choice.type === "tool" ? { type: "function", name: choice.name } : choice.type;
}

export function renderResponsesResponse(response: CanonicalResponse, context: RenderContext) {
  const { status, incompleteDetails } = terminalState(response.stopReason);
  return responseObject({
    context,
    status,
    incompleteDetails,
    output: outputItems(response.content, context),
    usage: response.usage,
  });
}
