import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62^20 ≈ 2^119: collisions are not a practical concern, and ids stay short in URLs and logs. */
const DEFAULT_RANDOM_LENGTH = 20;
/** Largest multiple of 62 below 256: bytes at or above it are discarded to avoid modulo bias. */
const UNBIASED_BYTE_LIMIT = 248;
const PREFIX_PATTERN = /^[a-z][a-z0-9]*$/;

/**
 * Returns a new random identifier `<prefix>_<base62>` (e.g. `proj_4fQ9...`), using crypto randomness.
 *
 * @param prefix - short lowercase type tag such as `proj` or `tok`; a trailing `_` is tolerated
 *   (`newId("proj_")` and `newId("proj")` give the same shape).
 * @param randomLength - number of base62 characters after the prefix (default 20).
 */
export function newId(prefix: string, randomLength: number = DEFAULT_RANDOM_LENGTH): string {
  const tag = prefix.endsWith("_") ? prefix.slice(0, -1) : prefix;
  if (!PREFIX_PATTERN.test(tag)) {
    throw new Error(`newId: prefix must match ${PREFIX_PATTERN} (got ${JSON.stringify(prefix)})`);
  }
  if (!Number.isInteger(randomLength) || randomLength < 8) {
    throw new Error(`newId: randomLength must be an integer >= 8 (got ${randomLength})`);
  }
  return `${tag}_${randomBase62(randomLength)}`;
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    // Over-draw so one batch almost always suffices despite rejected bytes.
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_BYTE_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}
