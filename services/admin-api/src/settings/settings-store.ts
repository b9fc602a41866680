import type { Prisma, PrismaClient } from "@gw/db";

/** A provider catalog repository (SPEC "Settings", `providerRepos`; fetched by the catalog work). */
export interface ProviderRepo {
  url: string;
  enabled: boolean;
  channel?: string;
}

/**
 * The deployment settings (SPEC "Settings"). `port` and `host` are read by the process at start:
 * a change is stored at once but applies at the next restart (the listening socket is not moved
 * under running requests). The other fields are read where they are used, through the config
 * change that every write publishes.
 */
export interface Settings {
  port: number;
  host: string;
  dashboardEnabled: boolean;
  defaultTimeoutMs: number;
  logLevel: "error" | "warn" | "info" | "debug";
  publicUrl: string;
  channel: string;
  providerRepos: ProviderRepo[];
  notifications: {
    channels: unknown[];
    notificationRules: unknown[];
    cooldowns: Record<string, unknown>;
  };
}

export const SETTINGS_ROW_ID = "global";

export function defaultSettings(): Settings {
  return {
    port: 3000,
    host: "0.0.0.0",
    dashboardEnabled: true,
    defaultTimeoutMs: 30_000,
    logLevel: "info",
    publicUrl: "http://localhost:3000",
    channel: "stable",
    providerRepos: [],
    notifications: { channels: [], notificationRules: [], cooldowns: {} },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The stored object over the defaults, field by field (a row written by an older version may lack some). */
export function withDefaults(stored: unknown): Settings {
  const defaults = defaultSettings();
  if (!isObject(stored)) return defaults;
  const notifications = isObject(stored.notifications) ? stored.notifications : {};
  return {
    ...defaults,
    ...stored,
    notifications: { ...defaults.notifications, ...notifications },
  } as Settings;
}

type SettingsReader = Pick<PrismaClient, "setting"> | Prisma.TransactionClient;

/**
 * Only what was set through the API, no defaults: what is stored, so that a default (the log level
 * `info`) never overrides the environment's value just because another field was changed.
 */
export async function readStoredSettings(prisma: SettingsReader): Promise<Record<string, unknown>> {
  const row = await prisma.setting.findUnique({ where: { id: SETTINGS_ROW_ID } });
  return isObject(row?.value) ? row.value : {};
}

/** The settings, defaults filled; no row yet means every default. */
export async function readSettings(prisma: SettingsReader): Promise<Settings> {
  const row = await prisma.setting.findUnique({ where: { id: SETTINGS_ROW_ID } });
  return withDefaults(row?.value);
}

export async function writeSettings(prisma: SettingsReader, settings: Settings): Promise<void> {
  const value = settings as unknown as Prisma.InputJsonValue;
  await prisma.setting.upsert({
    where: { id: SETTINGS_ROW_ID },
    create: { id: SETTINGS_ROW_ID, value },
    update: { value },
  });
}

/** Key names whose values are credentials, in notification channel objects. */
const SECRET_KEY = /secret|password|token|api_?key|auth/i;

/**
 * The settings as the API shows them: notification channels may carry credentials (SPEC: secrets
 * in channel responses are masked as `null`), so any such field, at any depth, is `null` here whoever wrote it.
 */
export function publicSettings(settings: Settings): Settings {
  const mask = (value: unknown): unknown =>
    isObject(value)
      ? Object.fromEntries(
          Object.entries(value).map(([key, inner]) => [key, SECRET_KEY.test(key) ? null : mask(inner)]),
        )
      : value;
  return {
    ...settings,
    notifications: { ...settings.notifications, channels: settings.notifications.channels.map(mask) },
  };
}
