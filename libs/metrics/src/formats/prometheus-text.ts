import { Counter, Gauge, Registry } from "prom-client";
import { METRIC_LIST, type MetricSnapshot } from "../samples.js";

/** The Content-Type of the text exposition format (version 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE: string = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * Renders a snapshot in the Prometheus text exposition format with prom-client. A fresh Registry
 * per render: the snapshot is the source of truth (read from the shared state every replica sees),
 * so nothing is accumulated in process memory between scrapes. Every metric of METRICS prints its
 * HELP and TYPE, even with no sample yet, so a scraper learns the families from the first scrape.
 */
export async function renderPrometheusText(snapshot: MetricSnapshot): Promise<string> {
  const registry = new Registry();
  const counters = new Map<string, Counter>();
  const gauges = new Map<string, Gauge>();
  const labelNames = new Map<string, readonly string[]>();
  for (const metric of METRIC_LIST) {
    labelNames.set(metric.name, metric.labels);
    const config = {
      name: metric.name,
      help: metric.help,
      labelNames: [...metric.labels],
      registers: [registry],
    };
    if (metric.type === "counter") counters.set(metric.name, new Counter(config));
    else gauges.set(metric.name, new Gauge(config));
  }
  for (const sample of snapshot.samples) {
    const names = labelNames.get(sample.name);
    if (!names || !Number.isFinite(sample.value)) continue;
    // prom-client throws on a label outside the declared set: keep only the declared ones.
    const labels = Object.fromEntries(names.map((name) => [name, sample.labels[name] ?? ""]));
    const counter = counters.get(sample.name);
    // A fresh counter starts at 0, so inc(value) sets it to the cumulative value we hold.
    if (counter) {
      if (sample.value >= 0) counter.inc(labels, sample.value);
      continue;
    }
    gauges.get(sample.name)?.set(labels, sample.value);
  }
  return registry.metrics();
}
