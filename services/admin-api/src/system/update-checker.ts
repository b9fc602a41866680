import type { Logger } from "@gw/logger";
import { fetchReleaseTarget, isUpdate } from "./release-source.js";

/** SPEC "Health and system": UpdateInfo, plus `error` when the check could not complete. */
export interface UpdateInfo {
  available: boolean;
  currentVersion: string;
  latestVersion: string | null;
  channel: string;
  releaseUrl?: string;
  checkedAt: string;
  error?: string;
}

export interface UpdateCheckerOptions {
  currentVersion: string;
  logger: Logger;
  /** The update channel in force (settings `channel`), read at each check. */
  readChannel: () => Promise<string>;
  /** The release source URL, read at each check (`SERVICE_RELEASE_URL`). */
  releaseUrl: () => string | undefined;
  now?: () => number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * Checks the release source and keeps the last answer for `GET /api/system/info`. A check never
 * throws: an unreachable source is an answer (`available: false` with `error`), since the caller
 * only wants to know whether to offer an update.
 */
export function createUpdateChecker(options: UpdateCheckerOptions) {
  const now = options.now ?? Date.now;
  let last: UpdateInfo | null = null;
  let running: Promise<UpdateInfo> | null = null;

  async function runCheck(): Promise<UpdateInfo> {
    const channel = await options.readChannel();
    const base = { currentVersion: options.currentVersion, channel };
    const url = options.releaseUrl();
    if (!url)
      return {
        ...base,
        available: false,
        latestVersion: null,
        checkedAt: new Date(now()).toISOString(),
        error: "no release source configured",
      };
    try {
      const target = await fetchReleaseTarget(url, channel);
      return {
        ...base,
        available: isUpdate(options.currentVersion, target.version, channel),
        latestVersion: target.version,
        ...(target.url ? { releaseUrl: target.url } : {}),
        checkedAt: new Date(now()).toISOString(),
      };
    } catch (error) {
      const message = (error as Error).message;
      options.logger.warn({ channel, reason: message }, "update check failed");
      return {
        ...base,
        available: false,
        latestVersion: null,
        checkedAt: new Date(now()).toISOString(),
        error: message,
      };
    }
  }

  /** One check at a time: concurrent callers share the one in flight. */
  function check(): Promise<UpdateInfo> {
    running ??= runCheck()
      .then((info) => {
        last = info;
        return info;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  /**
   * Automatic checks: the first 1 to 60 minutes after boot (spread, so replicas started together do
   * not call the source at once; well within SPEC's "within 24 hours"), then daily. The timers are
   * unref'd: they never keep the process alive. Returns the stop function.
   */
  function schedule(random: () => number = Math.random): () => void {
    let daily: NodeJS.Timeout | undefined;
    const background = () =>
      void check().catch((error) => options.logger.warn({ err: error }, "update check failed"));
    const first = setTimeout(
      () => {
        background();
        daily = setInterval(background, DAY).unref();
      },
      MINUTE + Math.floor(random() * 59 * MINUTE),
    ).unref();
    return () => {
      clearTimeout(first);
      if (daily) clearInterval(daily);
    };
  }

  return { check, schedule, latest: (): UpdateInfo | null => last };
}

export type UpdateChecker = ReturnType<typeof createUpdateChecker>;
