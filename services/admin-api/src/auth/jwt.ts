import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { decodeBase64Url, encodeBase64Url } from "./base64url.js";

/**
 * Management API access tokens: HS256 JSON Web Tokens (RFC 7519) with a fixed claim set.
 *
 * Only HS256 exists here. The algorithm is never read from the token to decide how to verify it:
 * the header must say exactly "HS256" and the signature is always recomputed with HMAC-SHA256,
 * which closes the `alg: none` and algorithm-confusion attacks.
 */

export interface AccessClaims {
  sub: string;
  email: string;
  role: string;
  permissions: string[];
  /** Issued at, Unix seconds. */
  iat: number;
  /** Expires at, Unix seconds. */
  exp: number;
  /** Random token id, so each token is distinct and can be traced or denied individually. */
  jti: string;
}

export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** Tolerated clock skew between replicas for `iat`; a token from further in the future is refused. */
const MAX_IAT_SKEW_SECONDS = 60;

/** HMAC-SHA256 keys shorter than the hash output are weaker than the algorithm (RFC 7518 §3.2). */
const MIN_KEY_BYTES = 32;

const HKDF_INFO = "llm-gateway jwt v1";

/** The one header we issue, byte for byte. */
const HEADER_SEGMENT = encodeBase64Url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

export type JwtErrorReason = "malformed" | "algorithm" | "signature" | "expired" | "not_yet_valid" | "claims";

/**
 * A token that must be refused. Messages are fixed texts: they never include the token, its
 * parts or the key, so logging the error cannot leak a credential.
 */
export class JwtError extends Error {
  override readonly name = "JwtError";

  constructor(
    readonly reason: JwtErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The JWT key, derived from SERVICE_SECRET_KEY with HKDF-SHA256: operators manage one secret,
 * and the JWT key is still independent of the AES key that encrypts secrets at rest.
 */
export function deriveJwtKey(secretKey: Buffer): Buffer {
  if (secretKey.length !== 32) throw new Error("SERVICE_SECRET_KEY must be 32 bytes");
  return Buffer.from(hkdfSync("sha256", secretKey, Buffer.alloc(0), HKDF_INFO, 32));
}

/** Issues an access token valid for ACCESS_TOKEN_TTL_SECONDS from `now` (milliseconds). */
export function signAccessToken(
  claims: Omit<AccessClaims, "iat" | "exp" | "jti">,
  key: Buffer,
  now: number = Date.now(),
): { token: string; claims: AccessClaims } {
  assertKey(key);
  const iat = Math.floor(now / 1000);
  // Listed field by field so extra properties on the argument never end up in the token.
  const full: AccessClaims = {
    sub: claims.sub,
    email: claims.email,
    role: claims.role,
    permissions: [...claims.permissions],
    iat,
    exp: iat + ACCESS_TOKEN_TTL_SECONDS,
    jti: randomBytes(16).toString("hex"),
  };
  const signingInput = `${HEADER_SEGMENT}.${encodeBase64Url(JSON.stringify(full))}`;
  return { token: `${signingInput}.${encodeBase64Url(hmac(signingInput, key))}`, claims: full };
}

/**
 * The claims of a valid token; throws JwtError otherwise. Checks run in an order that touches
 * the payload only after the signature proved we issued it.
 */
export function verifyAccessToken(token: string, key: Buffer, now: number = Date.now()): AccessClaims {
  assertKey(key);
  const parts = typeof token === "string" ? token.split(".") : [];
  if (parts.length !== 3) throw new JwtError("malformed", "token must have three parts");
  const [headerSegment, payloadSegment, signatureSegment] = parts as [string, string, string];

  const headerBytes = decodeBase64Url(headerSegment);
  const payloadBytes = decodeBase64Url(payloadSegment);
  const signature = decodeBase64Url(signatureSegment);
  if (!headerBytes || !payloadBytes || !signature) {
    throw new JwtError("malformed", "token parts must be base64url");
  }

  const header = parseJsonObject(headerBytes);
  if (!header) throw new JwtError("malformed", "token header is not a JSON object");
  if (header.alg !== "HS256") throw new JwtError("algorithm", "token algorithm must be HS256");
  if (Object.hasOwn(header, "typ") && header.typ !== "JWT") {
    throw new JwtError("malformed", "token type must be JWT");
  }

  // Length first: timingSafeEqual throws on different lengths, and the length of an HMAC is public.
  const expected = hmac(`${headerSegment}.${payloadSegment}`, key);
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
    throw new JwtError("signature", "token signature does not match");
  }

  const payload = parseJsonObject(payloadBytes);
  if (!payload) throw new JwtError("malformed", "token payload is not a JSON object");
  const claims = readClaims(payload);

  const nowSeconds = Math.floor(now / 1000);
  if (claims.exp <= nowSeconds) throw new JwtError("expired", "token has expired");
  if (claims.iat > nowSeconds + MAX_IAT_SKEW_SECONDS) {
    throw new JwtError("not_yet_valid", "token was issued in the future");
  }
  return claims;
}

function hmac(signingInput: string, key: Buffer): Buffer {
  return createHmac("sha256", key).update(signingInput, "ascii").digest();
}

function assertKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length < MIN_KEY_BYTES) {
    throw new TypeError(`JWT key must be a Buffer of at least ${MIN_KEY_BYTES} bytes`);
  }
}

/**
 * The parsed object, or null. The parser's own error is dropped on purpose: its message quotes
 * the input, which is part of the token.
 */
function parseJsonObject(bytes: Buffer): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return null;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Every claim present with its type; a fresh object so unknown claims are not passed on. */
function readClaims(payload: Record<string, unknown>): AccessClaims {
  const { sub, email, role, permissions, iat, exp, jti } = payload;
  const valid =
    typeof sub === "string" &&
    typeof email === "string" &&
    typeof role === "string" &&
    typeof jti === "string" &&
    Array.isArray(permissions) &&
    permissions.every((permission) => typeof permission === "string") &&
    Number.isSafeInteger(iat) &&
    Number.isSafeInteger(exp);
  if (!valid) throw new JwtError("claims", "token claims are missing or of the wrong type");
  return {
    sub,
    email,
    role,
    permissions: [...permissions],
    iat: iat as number,
    exp: exp as number,
    jti,
  };
}
