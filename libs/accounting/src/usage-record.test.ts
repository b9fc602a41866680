import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { startTelemetry } from "@gw/telemetry";
import { context, TraceFlags, trace } from "@opentelemetry/api";
import type { Outbox } from "./outbox.js";
import type { OutboxEntry } from "./outbox-log.js";
import { recordUsage, type UsageFacts } from "./usage-record.js";

const facts: UsageFacts = {
  traceId: "6f1c1d2e-0000-4000-8000-000000000001",
  startedAt: Date.now(),
  projectId: "proj_1",
  projectSlug: "p",
  tokenId: "tok_1",
  tags: { team: "a" },
  sessionId: "",
  endUser: "",
  endpoint: "chat.completions",
  attempt: 0,
  modelId: "m",
  provider: "custom",
  inputTokens: 3,
  outputTokens: 4,
  cacheTokens: 0,
  costMicros: 12,
  outcome: "success",
  status: 200,
  trace: [],
  errorMessage: "",
  streamed: false,
};

function capturingOutbox(): Outbox & { entries: OutboxEntry[] } {
  const entries: OutboxEntry[] = [];
  return {
    entries,
    enqueue: (e) => entries.push(e),
    pending: 0,
    full: false,
    flush: async () => {},
    close: async () => {},
  };
}

describe("recordUsage", () => {
  before(async () => {
    await startTelemetry({ serviceName: "test", version: "0" });
  });

  it("publishes the record with the active trace context in its headers", () => {
    const outbox = capturingOutbox();
    const spanContext = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: TraceFlags.SAMPLED,
    };
    context.with(trace.setSpanContext(context.active(), spanContext), () => recordUsage(outbox, facts));
    const [entry] = outbox.entries;
    assert.equal(entry?.id, `${facts.traceId}-0`);
    assert.equal(entry?.subject, "usage.record");
    assert.equal(entry?.headers?.traceparent, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  });

  it("sends no headers when there is no trace", () => {
    const outbox = capturingOutbox();
    recordUsage(outbox, facts);
    assert.equal(outbox.entries[0]?.headers, undefined);
  });
});
