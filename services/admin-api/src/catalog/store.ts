import { createHash } from "node:crypto";
import type { PrismaClient } from "@gw/db";
import type { AdminDeps } from "../deps.js";
import { BUILTIN_CATALOG } from "./builtin-catalog.js";
import { fetchRepoCatalog } from "./fetch-repo.js";
import type { CatalogFile, CatalogProvider } from "./format.js";
import { mergeCatalogs } from "./merge.js";
import { type RepoConfig, readRepoConfigs, repoKey } from "./repos.js";

/** SPEC "Limits": the merged catalog is kept 5 minutes. */
export const CATALOG_TTL_MS = 5 * 60_000;

/** What is known of one repository (url + channel). Times in ms since the epoch. */
export interface RepoState {
  resolvedFile: string | null;
  /** When a fetch last brought content different from what was held. */
  updatedAt: number | null;
  /** When a fetch was last attempted, successful or not. */
  lastChecked: number | null;
  error: string | null;
  /** The last good content: a repository that fails keeps contributing it until it answers again. */
  catalog: CatalogFile | null;
  contentHash: string | null;
}

/**
 * The catalog cache of one gateway, in this process's memory: the merged catalog and each repo's
 * status. Replicas (distributed mode) each keep their own, and a restart starts from the built-in
 * catalog until the next fetch; nothing of it is stored in the database.
 */
interface CatalogState {
  providers: CatalogProvider[] | null;
  cachedAt: number | null;
  expiresAt: number | null;
  /** The enabled repos the cached catalog was built from: when settings change, it is rebuilt. */
  signature: string | null;
  repos: Map<string, RepoState>;
  loading: Promise<LoadResult> | null;
  /** A settings read in flight, shared: a model list looks up every row's catalog entry at once. */
  reading: Promise<RepoConfig[]> | null;
}

export interface LoadResult {
  providers: CatalogProvider[];
  /** Enabled repositories fetched by this load. */
  attempted: RepoConfig[];
  errors: { url: string; error: string }[];
}

// Keyed by the database client: one state per gateway, even with several in one process (tests).
const states = new WeakMap<PrismaClient, CatalogState>();

function stateOf(deps: AdminDeps): CatalogState {
  let state = states.get(deps.prisma);
  if (!state) {
    state = {
      providers: null,
      cachedAt: null,
      expiresAt: null,
      signature: null,
      repos: new Map(),
      loading: null,
      reading: null,
    };
    states.set(deps.prisma, state);
  }
  return state;
}

function configuredRepos(deps: AdminDeps, state: CatalogState): Promise<RepoConfig[]> {
  if (!state.reading)
    state.reading = readRepoConfigs(deps.prisma).finally(() => {
      state.reading = null;
    });
  return state.reading;
}

const nowOf = (deps: AdminDeps) => (deps.now ?? Date.now)();
const signatureOf = (repos: RepoConfig[]) => JSON.stringify(repos.filter((r) => r.enabled).map(repoKey));

/**
 * The merged catalog. Fresh: from memory. Expired: the stale one is served while a reload runs in
 * the background, so model reads never wait on a slow repository. Never loaded, or the repos in the
 * settings changed: loaded now.
 */
export async function getCatalog(deps: AdminDeps): Promise<CatalogProvider[]> {
  const state = stateOf(deps);
  const repos = await configuredRepos(deps, state);
  if (state.providers && state.signature === signatureOf(repos)) {
    if (state.expiresAt !== null && nowOf(deps) >= state.expiresAt && !state.loading)
      startLoad(deps, state, repos).catch((error) =>
        deps.logger.warn({ err: error }, "background catalog reload failed"),
      );
    return state.providers;
  }
  return (await (state.loading ?? startLoad(deps, state, repos))).providers;
}

/** Drops the cache and fetches every enabled repository now (after any load in flight). */
export async function reloadCatalog(deps: AdminDeps): Promise<LoadResult> {
  const state = stateOf(deps);
  await state.loading?.catch(() => undefined);
  state.providers = null;
  return startLoad(deps, state, await readRepoConfigs(deps.prisma));
}

export interface RepoStatusView {
  url: string;
  enabled: boolean;
  resolvedFile: string | null;
  updatedAt: string | null;
  lastChecked: string | null;
  error: string | null;
}

/** SPEC "Catalog status": every configured repo (enabled or not) with what this process knows of it. */
export async function catalogStatus(deps: AdminDeps) {
  const state = stateOf(deps);
  const repos = await readRepoConfigs(deps.prisma);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    repos: repos.map((repo): RepoStatusView => {
      const known = state.repos.get(repoKey(repo));
      return {
        url: repo.url,
        enabled: repo.enabled,
        resolvedFile: known?.resolvedFile ?? null,
        updatedAt: iso(known?.updatedAt ?? null),
        lastChecked: iso(known?.lastChecked ?? null),
        error: known?.error ?? null,
      };
    }),
    cachedAt: iso(state.cachedAt),
    expiresAt: iso(state.expiresAt),
  };
}

function startLoad(deps: AdminDeps, state: CatalogState, repos: RepoConfig[]): Promise<LoadResult> {
  const loading = load(deps, state, repos).finally(() => {
    if (state.loading === loading) state.loading = null;
  });
  state.loading = loading;
  return loading;
}

async function load(deps: AdminDeps, state: CatalogState, repos: RepoConfig[]): Promise<LoadResult> {
  const enabled = repos.filter((r) => r.enabled);
  const errors: LoadResult["errors"] = [];
  await Promise.all(
    enabled.map(async (repo) => {
      const known = repoState(state, repo);
      const checkedAt = nowOf(deps);
      try {
        const fetched = await fetchRepoCatalog(repo.url, repo.channel);
        const hash = createHash("sha256").update(fetched.text).digest("hex");
        if (hash !== known.contentHash) known.updatedAt = checkedAt;
        Object.assign(known, {
          resolvedFile: fetched.resolvedFile,
          catalog: fetched.catalog,
          contentHash: hash,
          error: null,
        });
      } catch (error) {
        known.error = (error as Error).message;
        errors.push({ url: repo.url, error: known.error });
        deps.logger.warn({ channel: repo.channel, error: known.error }, "provider repository fetch failed");
      }
      known.lastChecked = checkedAt;
    }),
  );
  // Forget repositories no longer in the settings.
  const configured = new Set(repos.map(repoKey));
  for (const key of state.repos.keys()) if (!configured.has(key)) state.repos.delete(key);

  const layers = enabled.flatMap((repo) => state.repos.get(repoKey(repo))?.catalog ?? []);
  const providers = mergeCatalogs([BUILTIN_CATALOG, ...layers]);
  const now = nowOf(deps);
  Object.assign(state, {
    providers,
    cachedAt: now,
    expiresAt: now + CATALOG_TTL_MS,
    signature: signatureOf(repos),
  });
  return { providers, attempted: enabled, errors };
}

function repoState(state: CatalogState, repo: RepoConfig): RepoState {
  const key = repoKey(repo);
  let known = state.repos.get(key);
  if (!known) {
    known = {
      resolvedFile: null,
      updatedAt: null,
      lastChecked: null,
      error: null,
      catalog: null,
      contentHash: null,
    };
    state.repos.set(key, known);
  }
  return known;
}
