import type { RoutingServiceService } from "@gw/proto";
import type { AsyncHandlers } from "@gw/rpc";
import { type RoutingDeps, reportOutcome, route } from "./route.js";

/** The RoutingService implementation, served over gRPC (distributed) or called in-process (standalone). */
export function createRoutingHandlers(deps: RoutingDeps): AsyncHandlers<typeof RoutingServiceService> {
  return {
    route: (request) => route(deps, request),
    reportOutcome: async (request) => {
      await reportOutcome(deps, request);
      return {};
    },
  };
}
