import type { MetricSnapshot } from "../samples.js";

/**
 * A snapshot with every metric, a sample without a model (empty label) and label values that need
 * escaping in every format (space, comma, equals, quote), for the format and push tests.
 */
export function fixtureSnapshot(overrides: Partial<MetricSnapshot> = {}): MetricSnapshot {
  return {
    at: new Date("2026-11-25T03:30:00.250Z"),
    startedAt: new Date("2026-11-01T00:00:00.000Z"),
    samples: [
      {
        name: "service_requests_total",
        type: "counter",
        labels: { project: "acme", model: "gpt-4o" },
        value: 10,
      },
      { name: "service_requests_total", type: "counter", labels: { project: "acme", model: "" }, value: 2 },
      {
        name: "service_requests_total",
        type: "counter",
        labels: { project: "big co", model: 'm,1="x"' },
        value: 5,
      },
      {
        name: "service_tokens_total",
        type: "counter",
        labels: { type: "input", project: "acme", model: "gpt-4o" },
        value: 1200,
      },
      {
        name: "service_tokens_total",
        type: "counter",
        labels: { type: "output", project: "acme", model: "gpt-4o" },
        value: 340,
      },
      {
        name: "service_cost_usd_total",
        type: "gauge",
        labels: { project: "acme", model: "gpt-4o" },
        value: 0.0125,
      },
      { name: "service_request_duration_p50_ms", type: "gauge", labels: { project: "acme" }, value: 250 },
      { name: "service_request_duration_p95_ms", type: "gauge", labels: { project: "acme" }, value: 1000 },
      { name: "service_budget_used_ratio", type: "gauge", labels: { project: "acme" }, value: 0.42 },
    ],
    ...overrides,
  };
}
