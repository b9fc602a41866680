import { z } from "zod";

/**
 * The release source (`SERVICE_RELEASE_URL`, DESIGN "System update"): a JSON document at that URL,
 * one entry per update channel:
 *
 * ```json
 * {
 *   "channels": {
 *     "stable":  { "version": "1.4.0", "url": "https://example.com/releases/1.4.0" },
 *     "latest":  { "version": "1.5.0-rc.2", "url": "https://example.com/releases/1.5.0-rc.2" },
 *     "develop": { "version": "1.6.0-dev.7" }
 *   }
 * }
 * ```
 *
 * `url` (optional) is the release page, shown as `releaseUrl`. A channel set to a version tag
 * (`1.4.0`) pins that version: its entry is optional, the tag itself being the target.
 */
const releaseDocument = z.object({
  channels: z.record(z.string(), z.object({ version: z.string().trim().min(1), url: z.string().optional() })),
});

export const RELEASE_FETCH_TIMEOUT_MS = 5_000;

export interface ReleaseTarget {
  version: string;
  url?: string;
}

const VERSION_TAG = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;
const stripV = (version: string) => version.trim().replace(/^v/, "");

/** Fetch the document and pick the channel's release; throws an Error whose message is for the client. */
export async function fetchReleaseTarget(url: string, channel: string): Promise<ReleaseTarget> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(RELEASE_FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? "timed out after 5 s" : "could not be reached";
    throw new Error(`the release source ${reason}`);
  }
  if (!response.ok) throw new Error(`the release source answered HTTP ${response.status}`);
  let document: z.infer<typeof releaseDocument>;
  try {
    document = releaseDocument.parse(await response.json());
  } catch {
    throw new Error("the release source did not answer a valid release document");
  }
  const entry = Object.hasOwn(document.channels, channel) ? document.channels[channel] : undefined;
  if (entry) return { version: stripV(entry.version), ...(entry.url ? { url: entry.url } : {}) };
  if (VERSION_TAG.test(channel)) return { version: stripV(channel) };
  throw new Error(`the release source has no "${channel}" channel`);
}

type Parsed = { core: number[]; pre: string[] };

function parse(version: string): Parsed | null {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(stripV(version));
  if (!match) return null;
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4]?.split(".") ?? [] };
}

/** Semantic-version order (a pre-release sorts before its release); unparsable versions compare as text. */
export function compareVersions(a: string, b: string): number {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return stripV(a).localeCompare(stripV(b));
  for (let i = 0; i < 3; i++) if (left.core[i] !== right.core[i]) return left.core[i]! - right.core[i]!;
  if (left.pre.length === 0 || right.pre.length === 0) return right.pre.length - left.pre.length;
  for (let i = 0; i < Math.max(left.pre.length, right.pre.length); i++) {
    const x = left.pre[i];
    const y = right.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    return numeric ? Number(x) - Number(y) : x.localeCompare(y);
  }
  return 0;
}

/**
 * Is `target` an update for `current`? On a named channel only a newer release is; a pinned version
 * tag is the wanted version whichever way it lies, so any difference is.
 */
export function isUpdate(current: string, target: string, channel: string): boolean {
  const pinned = VERSION_TAG.test(channel);
  const order = compareVersions(target, current);
  return pinned ? order !== 0 : order > 0;
}
