import { bootService } from "@gw/lifecycle";
import { readRoutingConfig } from "./config.js";

await bootService({
  name: "routing",
  config: readRoutingConfig(),
  loadStart: async () => (await import("./run.js")).startRouting,
});
