import { bootService } from "@gw/lifecycle";
import { readAuditConfig } from "./config.js";

await bootService({
  name: "audit",
  config: readAuditConfig(),
  loadStart: async () => (await import("./run.js")).startAuditService,
});
