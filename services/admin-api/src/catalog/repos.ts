import type { PrismaClient } from "@gw/db";

/** A provider repository as the settings configure it (SPEC "Settings": `providerRepos`). */
export interface RepoConfig {
  url: string;
  enabled: boolean;
  /** The repo's own channel, else the global `channel`, else `stable`. */
  channel: string;
}

export const DEFAULT_CHANNEL = "stable";

/**
 * The configured repositories, read from the global settings row (the settings API writes it).
 * Read leniently: an entry without a string `url` is skipped rather than failing the catalog, and
 * the same url+channel listed twice counts once.
 */
export async function readRepoConfigs(prisma: PrismaClient): Promise<RepoConfig[]> {
  const row = await prisma.setting.findUnique({ where: { id: "global" } });
  const value = (isObject(row?.value) ? row.value : {}) as Record<string, unknown>;
  const globalChannel = nonEmptyString(value.channel) ?? DEFAULT_CHANNEL;
  const entries = Array.isArray(value.providerRepos) ? value.providerRepos : [];
  const repos: RepoConfig[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    const url = nonEmptyString(entry.url);
    if (!url) continue;
    const repo = {
      url,
      enabled: entry.enabled !== false,
      channel: nonEmptyString(entry.channel) ?? globalChannel,
    };
    if (seen.has(repoKey(repo))) continue;
    seen.add(repoKey(repo));
    repos.push(repo);
  }
  return repos;
}

/** What a repository's fetched state is kept under: a channel change means another file. */
export function repoKey(repo: { url: string; channel: string }): string {
  return `${repo.channel} ${repo.url}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
