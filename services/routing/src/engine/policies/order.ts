import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, positionScores, scoresEntry } from "./scoring.js";

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
    // In the project's order (first = tried first).
    const traced: CandidateScore[] = ordered.map((id, index) => ({
      modelId: id,
      score: scores.get(id) ?? null,
      reason: `position ${index + 1} in the project's model order`,
      position: index + 1,
    }));
    return {
      scores,
      excluded: new Map(),
      trace: [scoresEntry("order", "the project's model order", traced)],
    };
  },
};
