import type { RoutingPolicy } from "../types.js";
import { candidateEntry, positionScores } from "./scoring.js";

/**
 * The project's model order, as the administrator arranged it: the first model first, the rest as
 * fallbacks in turn. The default when a project configures no policy.
 */
export const orderPolicy: RoutingPolicy = {
  name: "order",
  evaluate(candidates, context) {
    const position = new Map(context.project.models.map((model, index) => [model.id, index]));
    const ordered = candidates
      .map((candidate) => candidate.model.id)
      .sort((a, b) => (position.get(a) ?? Infinity) - (position.get(b) ?? Infinity));
    const scores = positionScores(ordered);
    const trace = ordered.map((id, index) =>
      candidateEntry(
        "order",
        id,
        scores.get(id) ?? null,
        `position ${index + 1} in the project's model order`,
        {
          position: index + 1,
        },
      ),
    );
    return { scores, excluded: new Map(), trace };
  },
};
