import { SECRET_FIELDS } from "@gw/metrics";
import { AdminErrors } from "../errors.js";
import type { PatchIntegration } from "./schemas.js";

const isSecret = (field: string) => (SECRET_FIELDS as readonly string[]).includes(field);

/**
 * A PATCH applied to the stored settings (secrets decrypted), before validation (SPEC: "secret
 * fields change only when provided and non-empty"):
 * - a secret field given as a non-empty string replaces the stored one; null or "" keeps it
 *   (clients send back the masked `null` they read);
 * - `headers`, when given, is the new complete set: a header left out is removed, a header whose
 *   value is null keeps its stored value (how a client keeps a masked sensitive header);
 * - any other field given replaces the stored one.
 */
export function mergeSettings(
  current: Record<string, unknown>,
  patch: PatchIntegration,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (field === "name" || field === "enabled" || value === undefined) continue;
    if (isSecret(field)) {
      if (typeof value === "string" && value.length > 0) merged[field] = value;
    } else if (field === "headers") {
      merged.headers = mergeHeaders(current.headers, value as Record<string, string | null>);
    } else {
      merged[field] = value;
    }
  }
  return merged;
}

function mergeHeaders(stored: unknown, given: Record<string, string | null>): Record<string, string> {
  const storedHeaders = (stored && typeof stored === "object" ? stored : {}) as Record<string, unknown>;
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== null) {
      merged[name] = value;
      continue;
    }
    // Header names are case-insensitive: "authorization: null" keeps a stored "Authorization".
    const key = Object.keys(storedHeaders).find(
      (storedName) => storedName.toLowerCase() === name.toLowerCase(),
    );
    const kept = key === undefined ? undefined : storedHeaders[key];
    if (typeof kept !== "string")
      throw AdminErrors.invalid(
        `headers.${name}: null keeps a stored value, and none is stored: give a value`,
      );
    merged[name] = kept;
  }
  return merged;
}
