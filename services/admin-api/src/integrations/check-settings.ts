import { IntegrationSettings, type IntegrationType, type ResolvedIntegration } from "@gw/metrics";
import { assertFetchableUrl, UrlRefusedError } from "@gw/security";
import { AdminErrors } from "../errors.js";
import { parse } from "./schemas.js";

/** The fields holding an address the exporter will send to (otel `endpoint`, the others' `url`). */
const URL_FIELDS = ["endpoint", "url"] as const;

/**
 * The complete settings of an integration (after a create, or a PATCH merged into the stored
 * ones), validated as the exporter will read them, and its push address allowed: a link-local or
 * metadata address is refused (400) unless SERVICE_ALLOW_METADATA_URLS=1, read at each call like
 * the catalog does. Hostnames resolving there are refused again when the push connects.
 */
export function checkSettings(
  type: IntegrationType,
  settings: Record<string, unknown>,
): ResolvedIntegration["settings"] {
  const valid = parse(IntegrationSettings[type], settings) as Record<string, unknown>;
  for (const field of URL_FIELDS) {
    const value = valid[field];
    if (typeof value !== "string") continue;
    try {
      assertFetchableUrl(new URL(value));
    } catch (error) {
      if (error instanceof UrlRefusedError)
        throw AdminErrors.invalid(`${field}: ${error.message}`, "url_refused");
      throw AdminErrors.invalid(`${field}: must be an http or https URL`);
    }
  }
  return valid as ResolvedIntegration["settings"];
}
