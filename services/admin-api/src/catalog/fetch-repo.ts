import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { assertFetchableUrl, guardedLookup, UrlRefusedError } from "@gw/security";
import { type CatalogFile, catalogFileSchema, describeFormatError } from "./format.js";

/** Whole-repository budget: both attempts (channel file, then catalog.json) share it. */
export const FETCH_TIMEOUT_MS = 10_000;
const MAX_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$/; // names and version tags (1.4.0+build)

export interface FetchedCatalog {
  /** The file the catalog came from, without credentials or query (it is shown in the status). */
  resolvedFile: string;
  catalog: CatalogFile;
  /** The file as received, to tell a changed catalog from an unchanged one. */
  text: string;
}

/** A repository that could not be used; the message is safe to show (no URL credentials). */
export class RepoFetchError extends Error {}

/**
 * Fetches a repository's catalog (DESIGN 4): `<url>/<channel>.json`, or `<url>/catalog.json` when
 * that is a 404, checked against the catalog format. Throws RepoFetchError.
 */
export async function fetchRepoCatalog(
  baseUrl: string,
  channel: string,
  timeoutMs = FETCH_TIMEOUT_MS,
): Promise<FetchedCatalog> {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new RepoFetchError("the url is not a valid URL");
  }
  if (!CHANNEL_NAME.test(channel) || channel.includes(".."))
    throw new RepoFetchError(`the channel "${channel.slice(0, 100)}" is not a valid file name`);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for (const name of [`${channel}.json`, "catalog.json"]) {
      const file = fileUrl(base, name);
      const answer = await getText(file, signal);
      if (answer.status === 404 && name !== "catalog.json") continue;
      if (answer.status !== 200)
        throw new RepoFetchError(`${displayUrl(file)} answered HTTP ${answer.status}`);
      return { resolvedFile: displayUrl(file), catalog: parseCatalog(answer.text), text: answer.text };
    }
    throw new RepoFetchError("no catalog file was found");
  } catch (error) {
    throw asFetchError(error, signal, timeoutMs);
  }
}

function fileUrl(base: URL, name: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${name}`;
  url.hash = "";
  return url;
}

function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function parseCatalog(text: string): CatalogFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RepoFetchError("the file is not valid JSON");
  }
  const parsed = catalogFileSchema.safeParse(json);
  if (!parsed.success) throw new RepoFetchError(describeFormatError(parsed.error));
  return parsed.data;
}

/** GET with the metadata guard on every hop, a size cap, and a few redirects followed. */
async function getText(url: URL, signal: AbortSignal): Promise<{ status: number; text: string }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    assertFetchableUrl(current);
    const response = await send(current, signal);
    const location = response.headers.location;
    if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume();
      if (hop >= MAX_REDIRECTS) throw new RepoFetchError("too many redirects");
      current = new URL(location, current);
      continue;
    }
    return { status: response.statusCode ?? 0, text: await readBody(response) };
  }
}

function send(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "GET",
        signal,
        lookup: guardedLookup,
        headers: { accept: "application/json", "user-agent": "llm-gateway-catalog" },
      },
      resolve,
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BYTES) {
        response.destroy();
        reject(new RepoFetchError(`the file is larger than ${MAX_BYTES / 1024 / 1024} MB`));
        return;
      }
      chunks.push(chunk);
    });
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    response.on("error", reject);
  });
}

function asFetchError(error: unknown, signal: AbortSignal, timeoutMs: number): RepoFetchError {
  if (error instanceof RepoFetchError) return error;
  if (error instanceof UrlRefusedError) return new RepoFetchError(error.message);
  if (signal.aborted) return new RepoFetchError(`no answer within ${timeoutMs / 1000} s`);
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ECONNREFUSED") return new RepoFetchError("the connection was refused");
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return new RepoFetchError("the host name does not resolve");
  return new RepoFetchError(`the fetch failed: ${(error as Error)?.message ?? String(error)}`);
}
