import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import OpenAI from "openai";
import type { CanonicalResponse } from "../canonical/types.js";
import { responsesFormat } from "./responses.js";
import {
  encodeStream,
  type SdkServer,
  startSdkServer,
  TEXT_STREAM,
  TOOL_STREAM,
} from "./sdk-server.test-support.js";
import { sseEvent } from "./sse.js";
import type { RenderContext } from "./types.js";

// The official openai SDK (raw streams and the responses.stream() helper, which rebuilds the
// Response from the events and rejects any sequence it does not expect) is the judge.
const context: RenderContext = {
  id: "resp_0123abcd",
  model: "gpt-4.1",
  created: 1_700_000_000,
  instructions: "Be brief.",
  previousResponseId: "resp_previous",
  request: {
    model: "gpt-4.1",
    messages: [],
    stream: true,
    temperature: 0.2,
    tools: [{ name: "get_weather", parameters: { type: "object" } }],
    toolChoice: { type: "auto" },
  },
};

describe("responses format through the openai SDK", () => {
  let server: SdkServer;
  let client: OpenAI;
  before(async () => {
    server = await startSdkServer();
    client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: "x", maxRetries: 0 });
  });
  after(() => server.close());

  const request = { model: "gpt-4.1", input: "hi" };

  it("reads a rendered Response: output_text, function calls, usage, echoed settings", async () => {
    const response: CanonicalResponse = {
      id: "up",
      model: "gpt-upstream",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      ],
      stopReason: "tool_calls",
      usage: { inputTokens: 50, outputTokens: 9, cacheReadTokens: 20, cacheWriteTokens: 0 },
    };
    server.answer({ json: responsesFormat.renderResponse(response, context) });
    const result = await client.responses.create(request);
    assert.equal(result.id, context.id);
    assert.equal(result.status, "completed");
    assert.equal(result.output_text, "Checking.");
    const call = result.output.find((item) => item.type === "function_call");
    assert.equal(call?.type === "function_call" ? call.call_id : "", "call_1");
    assert.equal(call?.type === "function_call" ? call.arguments : "", '{"city":"Paris"}');
    assert.equal(result.usage?.input_tokens, 50);
    assert.equal(result.usage?.input_tokens_details.cached_tokens, 20);
    assert.equal(result.usage?.total_tokens, 59);
    assert.equal(result.instructions, "Be brief.");
    assert.equal(result.previous_response_id, "resp_previous");
    assert.equal(result.temperature, 0.2);
    assert.equal(result.tools[0]?.type === "function" ? result.tools[0].name : "", "get_weather");
  });

  it("marks a response cut by max_output_tokens incomplete", async () => {
    const response: CanonicalResponse = {
      id: "up",
      model: "m",
      content: [{ type: "text", text: "Once upon" }],
      stopReason: "length",
      usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    server.answer({ json: responsesFormat.renderResponse(response, context) });
    const result = await client.responses.create(request);
    assert.equal(result.status, "incomplete");
    assert.equal(result.incomplete_details?.reason, "max_output_tokens");
    assert.equal(result.output_text, "Once upon");
  });

  it("streams raw events: text deltas, the trace, and response.completed with usage", async () => {
    server.answer({ sse: encodeStream(responsesFormat.createStreamEncoder(context), TEXT_STREAM) });
    const stream = await client.responses.create({ ...request, stream: true });
    let text = "";
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    let trace: unknown;
    let lastSequence = -1;
    for await (const event of stream) {
      types.push(event.type);
      assert.ok(event.sequence_number > lastSequence, "sequence numbers increase");
      lastSequence = event.sequence_number;
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
      if ((event as unknown as { object?: string }).object === "trace") trace = event;
    }
    assert.equal(text, "Hello, world");
    assert.deepEqual(types.slice(0, 3), ["response.created", "response.in_progress", "keepalive"]);
    assert.equal(types.at(-1), "response.completed");
    assert.deepEqual(
      { ...(trace as object), sequence_number: 0 },
      {
        type: "keepalive",
        sequence_number: 0,
        object: "trace",
        model: "gpt-routed",
        provider: "openai",
        policies: ["cheapest"],
        costEstimate: 0.0012,
      },
    );
    assert.equal(completed?.usage?.input_tokens, 10);
    assert.equal(completed?.usage?.output_tokens, 3);
    assert.equal(completed?.usage?.input_tokens_details.cached_tokens, 4);
  });

  it("streams tool calls the responses.stream() helper rebuilds into the final Response", async () => {
    server.answer({ sse: encodeStream(responsesFormat.createStreamEncoder(context), TOOL_STREAM) });
    const deltas: string[] = [];
    const stream = client.responses.stream(request);
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    assert.equal(final.status, "completed");
    assert.equal(final.output_text, "Let me check.");
    assert.deepEqual(deltas, ["Let me ", "check."]);
    const calls = final.output.flatMap((item) =>
      item.type === "function_call" ? [[item.call_id, item.name, item.arguments]] : [],
    );
    assert.deepEqual(calls, [
      ["call_a", "get_weather", '{"city":"Paris"}'],
      ["call_b", "get_time", '{"tz":"CET"}'],
    ]);
    assert.equal(final.usage?.total_tokens, 150);
  });

  it("helper: a stream without the trace works too (x-service-no-trace)", async () => {
    const sse = encodeStream(responsesFormat.createStreamEncoder(context), TEXT_STREAM, { trace: false });
    server.answer({ sse });
    const final = await client.responses.stream(request).finalResponse();
    assert.equal(final.output_text, "Hello, world");
  });

  it("throws APIError on a mid-stream error, both raw and through the helper", async () => {
    const wire = { message: "provider went away", type: "upstream_error", code: "upstream_error" };
    const sse = () =>
      encodeStream(responsesFormat.createStreamEncoder(context), TEXT_STREAM.slice(0, 3), { error: wire });
    server.answer({ sse: sse() });
    const raw = await client.responses.create({ ...request, stream: true });
    const rawError = await (async () => {
      for await (const _event of raw) {
        // drain
      }
    })().catch((e: unknown) => e);
    assert.ok(rawError instanceof OpenAI.APIError);
    assert.equal(rawError.message, "provider went away");
    assert.equal(rawError.code, "upstream_error");

    server.answer({ sse: sse() });
    const helperError = await client.responses
      .stream(request)
      .finalResponse()
      .catch((e: unknown) => e);
    assert.ok(helperError instanceof OpenAI.APIError);
  });

  it("why the trace data says keepalive: the helper rejects an unknown event type", async () => {
    const encoder = responsesFormat.createStreamEncoder(context);
    let sse = encodeStream(encoder, TEXT_STREAM, { trace: false });
    sse = sse.replace("event: response.output_item.added", () => {
      const trace = sseEvent("trace", { type: "trace", sequence_number: 2 });
      return `${trace.trimEnd()}\n\nevent: response.output_item.added`;
    });
    server.answer({ sse });
    const error = await client.responses
      .stream(request)
      .finalResponse()
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.OpenAIError);
    assert.match(String(error), /Unhandled response stream event/);
  });
});
