import { z } from "zod";
import { AdminErrors } from "../errors.js";
import { parseWith } from "../validate.js";

/** `latest`, `stable`, `develop`, or a version tag (`1.4.0`, `v1.4.0-rc.1`): SPEC "Settings", `channel`. */
export const CHANNEL_NAMES = ["latest", "stable", "develop"] as const;
const VERSION_TAG = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

export const channel = z
  .string()
  .trim()
  .refine(
    (value) => (CHANNEL_NAMES as readonly string[]).includes(value) || VERSION_TAG.test(value),
    `must be ${CHANNEL_NAMES.join(", ")} or a version tag such as 1.4.0`,
  );

const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

const providerRepo = z.strictObject({
  url: httpUrl,
  enabled: z.boolean().default(true),
  channel: channel.optional(),
});

export const settingsUpdate = z.strictObject({
  port: z.number().int("must be a whole number").min(1, "must be 1-65535").max(65_535, "must be 1-65535"),
  logLevel: z.enum(["error", "warn", "info", "debug"]),
  defaultTimeoutMs: z.number().int("must be a whole number").positive("must be above 0"),
  publicUrl: httpUrl,
  providerRepos: z.array(providerRepo).max(50),
  channel,
});

export type SettingsUpdate = Partial<z.infer<typeof settingsUpdate>>;

const UPDATABLE = Object.keys(settingsUpdate.shape);

/** Fields of the settings object that exist but are not changed through `PUT /api/settings`. */
const NOT_HERE: Record<string, string> = {
  host: "the bind address is not changed through the API",
  dashboardEnabled: "it is set by the deployment, not through the API",
  notifications: "notification settings are changed through /api/notifications",
};

/**
 * A partial update of the settings: only the fields SPEC lets `PUT /api/settings` change. Any
 * other field is a 400 naming it, rather than silently ignored (a client would believe it saved).
 */
export function parseSettingsUpdate(body: unknown): SettingsUpdate {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw AdminErrors.invalid("The body must be a JSON object of settings fields.");
  for (const key of Object.keys(body)) {
    if (UPDATABLE.includes(key)) continue;
    const why = Object.hasOwn(NOT_HERE, key) ? NOT_HERE[key] : undefined;
    throw AdminErrors.invalid(
      why
        ? `${key}: cannot be changed here (${why}).`
        : `${key}: not a settings field that can be changed (allowed: ${UPDATABLE.join(", ")}).`,
    );
  }
  return parseWith(settingsUpdate.partial(), body);
}
