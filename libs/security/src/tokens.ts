import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Prefix of project token values. */
export const PROJECT_TOKEN_PREFIX = "sk-rt-";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random base62 text from crypto bytes; rejection sampling keeps it unbiased. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new project token value: `sk-rt-` and 40 base62 characters (~238 bits). */
export function generateProjectToken(): string {
  return PROJECT_TOKEN_PREFIX + randomBase62(40);
}

/** Tokens are stored as hex SHA-256; the value itself is shown once and never stored. */
export function hashToken(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** The part of a token safe to display ("sk-rt-AbCd"). */
export function tokenDisplayPrefix(value: string): string {
  return value.slice(0, PROJECT_TOKEN_PREFIX.length + 4);
}
