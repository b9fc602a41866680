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
  // Plain loops, no Sets: both lists are a handful of names, and this runs per model per request.
  const missing: string[] = [];
  for (let i = 0; i < required.length; i++) {
    const name = canonicalCapability(required[i]!);
    // Each name once, in the order first required.
    if (missing.includes(name) || declares(modelCapabilities, name)) continue;
    missing.push(name);
  }
  return { declared: true, missing };
}

function declares(modelCapabilities: string[], name: string): boolean {
  for (let i = 0; i < modelCapabilities.length; i++)
    if (canonicalCapability(modelCapabilities[i]!) === name) return true;
  return false;
}
