import { createHash, randomBytes } from "node:crypto";

/**
 * Refresh tokens are opaque random strings. Only their SHA-256 is stored: a leaked database
 * does not yield usable tokens, and 256 random bits need no salt or slow hash to resist guessing.
 * Rotation and family revocation live with the store; this module only makes and hashes values.
 */

export const REFRESH_TOKEN_PREFIX = "rt_";

export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;

/** A new token (given to the client once) and the hash to store. */
export function generateRefreshToken(): { token: string; tokenHash: string } {
  const token = REFRESH_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  return { token, tokenHash: hashRefreshToken(token) };
}

/** Hex SHA-256 of the full token, prefix included: the lookup key for a presented token. */
export function hashRefreshToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
