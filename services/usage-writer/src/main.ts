import { bootService } from "@gw/lifecycle";
import { readUsageWriterConfig } from "./config.js";

await bootService({
  name: "usage-writer",
  config: readUsageWriterConfig(),
  loadStart: async () => (await import("./run.js")).startUsageWriterService,
});
