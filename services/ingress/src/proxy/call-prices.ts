import type { ModelConfig } from "@gw/config-store";
import type { ModelPrices } from "@gw/pricing";
import type { Candidate } from "@gw/proto";

/**
 * The prices a call is charged at: the volume tier routing found for this month when one applies
 * (so the usage record and the settled budget agree with the estimate), else the model's own.
 */
export function callPrices(candidate: Candidate, model: ModelConfig): ModelPrices {
  if (!candidate.tier) return model;
  return {
    inputPrice: candidate.tier.inputPrice,
    outputPrice: candidate.tier.outputPrice,
    cachePrice: candidate.tier.cachePrice ?? null,
  };
}
