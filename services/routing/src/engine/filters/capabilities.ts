import { canonicalCapability, matchCapabilities } from "../capabilities.js";
import { defineFilter } from "./filter.js";

/**
 * The request needs tools, images or JSON mode: a model that lists its capabilities must list
 * every one of them (aliases mapped). A model that lists none is unknown, not incapable: it
 * passes (the trace says so), since many custom and local models are configured without them.
 */
export const capabilitiesFilter = defineFilter(
  "capabilities",
  (model, context) => {
    const required = context.features.requiredCapabilities;
    if (required.length === 0) return null;
    const match = matchCapabilities(model.capabilities, required);
    if (!match.declared)
      return { note: "capabilities not declared", details: { required, capabilities: [] } };
    if (match.missing.length === 0) return null;
    return {
      excluded: `missing capabilities: ${match.missing.join(", ")}`,
      details: { required, capabilities: model.capabilities, missing: match.missing },
    };
  },
  (context) => ({ required: context.features.requiredCapabilities.map(canonicalCapability) }),
);
