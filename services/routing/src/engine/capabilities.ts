/**
 * Capability names. The API speaks `functionCalling`, `json`, `vision`; stored configuration (and
 * the catalog) may say `tools`, `json_mode`. Both sides are mapped to the API names before any
 * comparison, so a model stored with `tools` serves a request that needs `functionCalling`.
 */
const ALIASES: Record<string, string> = {
  tools: "functionCalling",
  json_mode: "json",
};

/** The API name of a capability (unknown names are kept as they are, e.g. `chat`). */
export function canonicalCapability(name: string): string {
  return ALIASES[name] ?? name;
}

export interface CapabilityMatch {
  /** The model lists no capability at all: unknown, not "none". */
  declared: boolean;
  /** Required capabilities (API names) the model does not list; empty when undeclared. */
  missing: string[];
}

export function matchCapabilities(modelCapabilities: string[], required: string[]): CapabilityMatch {
  if (modelCapabilities.length === 0) return { declared: false, missing: [] };
  const has = new Set(modelCapabilities.map(canonicalCapability));
  const wanted = [...new Set(required.map(canonicalCapability))];
  return { declared: true, missing: wanted.filter((name) => !has.has(name)) };
}
