import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { decodeBase64Url, encodeBase64Url } from "./base64url.js";

/**
 * Password hashing with scrypt. Stored form: `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 * The parameters travel with each hash, so they can be raised later without breaking the
 * hashes already stored (verify always uses the parameters written in the record).
 */

export const MIN_PASSWORD_LENGTH = 8;

/** Bounds the work one request can force on us (normalising, hashing), not the user's choice. */
export const MAX_PASSWORD_LENGTH = 1024;

const SCHEME = "scrypt";
/** Current parameters for new hashes: N=2^14, r=8, p=1 (16 MiB, tens of milliseconds). */
const COST = 16384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 64;

/**
 * Limits on parameters read from a stored record, so a corrupted or hostile row cannot make one
 * login allocate gigabytes or spin for minutes.
 */
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;
const MAX_PARALLELISM = 16;
const MIN_SALT_BYTES = 16;
const MIN_KEY_BYTES = 32;
const MAX_ENCODED_LENGTH = 256;

/**
 * A hash in the current format of a random password that was thrown away, so it matches nothing.
 * Login verifies against it when the email is unknown: both paths then cost one scrypt, and the
 * response time does not reveal which emails have accounts. Precomputed rather than computed at
 * start-up so the first unknown-email login is not slower than the rest.
 */
export const DUMMY_PASSWORD_HASH =
  "scrypt$16384$8$1$yYcFizL502iwVdlSExVF0w$GZ7SCR_JMc32bZUlh4z5-eqpfahf6P7rXHkf-jmhXYBx_8yhHvIIgtME1G20DRQu0cJqdma_uJ-mylrXtxmaLA";

/** Null when the password is acceptable for a new or changed password, else a message for the user. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== "string") return "password must be a string";
  const length = codePointLength(password);
  if (length < MIN_PASSWORD_LENGTH) {
    return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  }
  if (length > MAX_PASSWORD_LENGTH) {
    return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  }
  return null;
}

/** A new salted hash in the stored form. Callers validate with passwordProblem first. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await deriveKey(password, salt, {
    cost: COST,
    blockSize: BLOCK_SIZE,
    parallelism: PARALLELISM,
    keyBytes: KEY_BYTES,
  });
  return [SCHEME, COST, BLOCK_SIZE, PARALLELISM, encodeBase64Url(salt), encodeBase64Url(hash)].join("$");
}

/**
 * Whether `password` matches the stored hash. Never throws: an unknown scheme, a malformed record
 * or out-of-bounds parameters are simply "no match", so a bad row cannot turn a login into a 500.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  try {
    if (typeof password !== "string" || codePointLength(password) > MAX_PASSWORD_LENGTH) return false;
    const record = parseEncoded(encoded);
    if (!record) return false;
    const actual = await deriveKey(password, record.salt, {
      cost: record.cost,
      blockSize: record.blockSize,
      parallelism: record.parallelism,
      keyBytes: record.hash.length,
    });
    return actual.length === record.hash.length && timingSafeEqual(actual, record.hash);
  } catch {
    return false;
  }
}

/** Spends the time of one real verification and answers false: the unknown-email branch of login. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_PASSWORD_HASH);
  return false;
}

interface ScryptParams {
  cost: number;
  blockSize: number;
  parallelism: number;
  keyBytes: number;
}

/**
 * The async scrypt: it runs on libuv's thread pool, so hashing does not block the event loop
 * (scryptSync would stall every other request for the whole computation).
 */
function deriveKey(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options = {
    N: params.cost,
    r: params.blockSize,
    p: params.parallelism,
    // Node's default cap is 32 MiB; stored hashes with raised parameters need more.
    maxmem: 128 * params.blockSize * (params.cost + params.parallelism + 2) + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    // NFKC: the same password typed on two keyboards or systems can arrive as different code
    // point sequences; normalising makes them hash the same (NIST SP 800-63B §5.1.1.2).
    scrypt(password.normalize("NFKC"), salt, params.keyBytes, options, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

interface StoredHash {
  cost: number;
  blockSize: number;
  parallelism: number;
  salt: Buffer;
  hash: Buffer;
}

function parseEncoded(encoded: unknown): StoredHash | null {
  if (typeof encoded !== "string" || encoded.length > MAX_ENCODED_LENGTH) return null;
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== SCHEME) return null;
  const [, costText, blockSizeText, parallelismText, saltText, hashText] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const cost = parsePositiveInteger(costText);
  const blockSize = parsePositiveInteger(blockSizeText);
  const parallelism = parsePositiveInteger(parallelismText);
  const salt = decodeBase64Url(saltText);
  const hash = decodeBase64Url(hashText);
  if (cost === null || blockSize === null || parallelism === null || !salt || !hash) return null;
  if (128 * cost * blockSize > MAX_MEMORY_BYTES || parallelism > MAX_PARALLELISM) return null;
  // scrypt requires N to be a power of two above 1 (the bound above keeps it within 32 bits).
  if (cost < 2 || (cost & (cost - 1)) !== 0) return null;
  if (salt.length < MIN_SALT_BYTES || hash.length < MIN_KEY_BYTES) return null;
  return { cost, blockSize, parallelism, salt, hash };
}

/** Decimal digits without sign or leading zero, as written by hashPassword. */
function parsePositiveInteger(text: string): number | null {
  return /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : null;
}

/** Characters as a person counts them (code points), so an emoji is one character, not two. */
function codePointLength(text: string): number {
  // Each code point is one or two UTF-16 units: skip the count when the answer is already clear.
  if (text.length > 2 * MAX_PASSWORD_LENGTH) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}
