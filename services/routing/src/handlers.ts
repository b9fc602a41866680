import type { RoutingServiceService } from "@gw/proto";
import type { AsyncHandlers } from "@gw/rpc";
import { type RoutingDeps, reportOutcome, route } from "./route.js";

/** The RoutingService implementation, served over gRPC (distributed) or called in-process (standalone). */
export function createRoutingHandlers(deps: RoutingDeps): AsyncHandlers<typeof RoutingServiceService> {
  return {
    route: (request) => route(deps, request),
    reportOutcomes: async (request) => {
      // Each report on its own: one that cannot be stored does not lose the others.
      const results = await Promise.allSettled(
        request.outcomes.map((outcome) => reportOutcome(deps, outcome)),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
      return {};
    },
  };
}
