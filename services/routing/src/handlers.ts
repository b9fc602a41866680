import type { ConfigStore } from "@gw/config-store";
import type { RoutingServiceService } from "@gw/proto";
import type { AsyncHandlers } from "@gw/rpc";
import { route } from "./route.js";

/** The RoutingService implementation, served over gRPC (distributed) or called in-process (standalone). */
export function createRoutingHandlers(deps: {
  configStore: ConfigStore;
}): AsyncHandlers<typeof RoutingServiceService> {
  return {
    route: (request) => route(deps.configStore, request),
  };
}
