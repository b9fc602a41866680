import { bootService } from "@gw/lifecycle";
import { readIngressConfig } from "./config.js";

await bootService({
  name: "ingress",
  config: readIngressConfig(),
  loadStart: async () => (await import("./run.js")).startIngressService,
});
