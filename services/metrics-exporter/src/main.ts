import { bootService } from "@gw/lifecycle";
import { readMetricsExporterConfig } from "./config.js";

await bootService({
  name: "metrics-exporter",
  config: readMetricsExporterConfig(),
  loadStart: async () => (await import("./run.js")).startMetricsExporterService,
});
