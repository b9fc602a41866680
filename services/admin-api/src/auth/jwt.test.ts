import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import {
  ACCESS_TOKEN_TTL_SECONDS,
  type AccessClaims,
  deriveJwtKey,
  JwtError,
  type JwtErrorReason,
  signAccessToken,
  verifyAccessToken,
} from "./jwt.js";

const KEY = deriveJwtKey(Buffer.alloc(32, 1));
const OTHER_KEY = deriveJwtKey(Buffer.alloc(32, 2));
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const NOW_SECONDS = NOW / 1000;

const MEMBER = {
  sub: "usr_123",
  email: "member@example.com",
  role: "member",
  permissions: ["project:read", "report:read"],
};

function b64url(value: unknown): string {
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
}

function validPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...MEMBER, iat: NOW_SECONDS, exp: NOW_SECONDS + 3600, jti: "a".repeat(32), ...overrides };
}

/** A token with any header and payload, correctly HMAC-signed with `key`: only the named check can fail. */
function craft(header: unknown, payload: unknown, key: Buffer = KEY): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`;
}

const HS256 = { alg: "HS256", typ: "JWT" };

function assertRejected(token: string, reason: JwtErrorReason, now = NOW): void {
  assert.throws(
    () => verifyAccessToken(token, KEY, now),
    (error: unknown) => {
      assert.ok(error instanceof JwtError, "a JwtError");
      assert.equal(error.reason, reason);
      // Nothing secret may reach a log line through the error.
      for (const secret of [token, ...token.split(".")].filter((part) => part.length > 0)) {
        assert.ok(!error.message.includes(secret), "message must not quote the token");
        assert.ok(!String(error.stack).includes(secret), "stack must not quote the token");
      }
      assert.ok(!error.message.includes(KEY.toString("hex")));
      assert.ok(!error.message.includes(KEY.toString("base64url")));
      assert.equal(error.cause, undefined);
      return true;
    },
  );
}

describe("signAccessToken / verifyAccessToken", () => {
  it("round-trips the claims with a 1 hour lifetime and a random jti", () => {
    const { token, claims } = signAccessToken(MEMBER, KEY, NOW);
    assert.deepEqual(claims, {
      ...MEMBER,
      iat: NOW_SECONDS,
      exp: NOW_SECONDS + ACCESS_TOKEN_TTL_SECONDS,
      jti: claims.jti,
    });
    assert.match(claims.jti, /^[0-9a-f]{32}$/);
    assert.deepEqual(verifyAccessToken(token, KEY, NOW), claims);
    assert.deepEqual(verifyAccessToken(token, KEY, NOW + 3599_999), claims);
    assert.notEqual(signAccessToken(MEMBER, KEY, NOW).claims.jti, claims.jti);
  });

  it("uses exactly the header {alg:HS256,typ:JWT} and unpadded base64url", () => {
    const { token } = signAccessToken(MEMBER, KEY, NOW);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    assert.equal(Buffer.from(header, "base64url").toString(), '{"alg":"HS256","typ":"JWT"}');
    assert.equal(header, "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(JSON.parse(Buffer.from(payload, "base64url").toString()).sub, "usr_123");
    assert.equal(Buffer.from(signature, "base64url").length, 32);
  });

  it("does not copy extra properties of the argument into the token", () => {
    const withExtra = { ...MEMBER, password: "hunter22" } as typeof MEMBER;
    const { token, claims } = signAccessToken(withExtra, KEY, NOW);
    assert.ok(!("password" in claims));
    assert.ok(!Buffer.from(token.split(".")[1]!, "base64url").toString().includes("hunter22"));
  });

  it("returns only the known claims of a verified token", () => {
    const claims = verifyAccessToken(craft(HS256, validPayload({ admin: true })), KEY, NOW);
    assert.ok(!("admin" in claims));
  });

  it("accepts a header without typ", () => {
    const claims: AccessClaims = verifyAccessToken(craft({ alg: "HS256" }, validPayload()), KEY, NOW);
    assert.equal(claims.sub, "usr_123");
  });
});

describe("verifyAccessToken rejections", () => {
  it("algorithm: alg none with an empty signature", () => {
    assertRejected(`${b64url({ alg: "none", typ: "JWT" })}.${b64url(validPayload())}.`, "algorithm");
  });

  it("algorithm: anything but exactly HS256, even when correctly signed with the key", () => {
    for (const alg of ["none", "None", "HS512", "RS256", "hs256", "HS256 ", ""]) {
      assertRejected(craft({ alg, typ: "JWT" }, validPayload()), "algorithm");
    }
    assertRejected(craft({ typ: "JWT" }, validPayload()), "algorithm");
    assertRejected(craft({ alg: ["HS256"] }, validPayload()), "algorithm");
  });

  it("malformed: typ present and not JWT", () => {
    assertRejected(craft({ alg: "HS256", typ: "JWS" }, validPayload()), "malformed");
  });

  it("signature: signed with another key", () => {
    assertRejected(signAccessToken(MEMBER, OTHER_KEY, NOW).token, "signature");
  });

  it("signature: payload changed to role admin, original signature kept", () => {
    const { token } = signAccessToken(MEMBER, KEY, NOW);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const tampered = b64url({ ...claims, role: "admin", permissions: ["user:write"] });
    assertRejected(`${header}.${tampered}.${signature}`, "signature");
  });

  it("signature: truncated, extended or empty signature", () => {
    const { token } = signAccessToken(MEMBER, KEY, NOW);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const bytes = Buffer.from(signature, "base64url");
    assertRejected(`${header}.${payload}.${bytes.subarray(0, 31).toString("base64url")}`, "signature");
    assertRejected(
      `${header}.${payload}.${Buffer.concat([bytes, bytes]).toString("base64url")}`,
      "signature",
    );
    assertRejected(`${header}.${payload}.`, "signature");
  });

  it("expired: exp equal to now and exp before now", () => {
    const { token, claims } = signAccessToken(MEMBER, KEY, NOW);
    assertRejected(token, "expired", claims.exp * 1000);
    assertRejected(token, "expired", claims.exp * 1000 + 500);
    assertRejected(token, "expired", NOW + 2 * 3600_000);
    assertRejected(craft(HS256, validPayload({ exp: NOW_SECONDS - 1 })), "expired");
  });

  it("not_yet_valid: iat far in the future, while 60 s of skew is tolerated", () => {
    assertRejected(
      craft(HS256, validPayload({ iat: NOW_SECONDS + 3600, exp: NOW_SECONDS + 7200 })),
      "not_yet_valid",
    );
    assertRejected(craft(HS256, validPayload({ iat: NOW_SECONDS + 61 })), "not_yet_valid");
    const skewed = verifyAccessToken(craft(HS256, validPayload({ iat: NOW_SECONDS + 60 })), KEY, NOW);
    assert.equal(skewed.iat, NOW_SECONDS + 60);
  });

  it("claims: missing exp", () => {
    const { exp: _exp, ...withoutExp } = validPayload();
    assertRejected(craft(HS256, withoutExp), "claims");
  });

  it("claims: each claim of the wrong type", () => {
    const wrong: Record<string, unknown>[] = [
      { permissions: "project:read" },
      { permissions: ["project:read", 7] },
      { sub: 123 },
      { email: null },
      { role: ["admin"] },
      { jti: 1 },
      { iat: "1736942400" },
      { iat: NOW_SECONDS + 0.5 },
      { exp: String(NOW_SECONDS + 3600) },
      { exp: NOW_SECONDS + 3600.5 },
      { exp: Number.MAX_VALUE },
    ];
    for (const overrides of wrong) assertRejected(craft(HS256, validPayload(overrides)), "claims");
    const { iat: _iat, ...withoutIat } = validPayload();
    assertRejected(craft(HS256, withoutIat), "claims");
  });

  it("malformed: payload that is not a JSON object, even when correctly signed", () => {
    assertRejected(craft(HS256, "{not json"), "malformed");
    assertRejected(craft(HS256, [validPayload()]), "malformed");
    assertRejected(craft(HS256, "null"), "malformed");
  });

  it("malformed: header that is not a JSON object", () => {
    assertRejected(craft("{not json", validPayload()), "malformed");
    assertRejected(craft('"HS256"', validPayload()), "malformed");
  });

  it("malformed: not three parts", () => {
    const { token } = signAccessToken(MEMBER, KEY, NOW);
    const [header, payload] = token.split(".") as [string, string];
    assertRejected(`${header}.${payload}`, "malformed");
    assertRejected(`${token}.${payload}`, "malformed");
    assertRejected("", "malformed");
    assert.throws(() => verifyAccessToken(undefined as unknown as string, KEY, NOW), JwtError);
  });

  it("malformed: characters outside base64url, padding, or non-canonical encodings", () => {
    const { token } = signAccessToken(MEMBER, KEY, NOW);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    assertRejected(`${header}.${payload}.${signature.slice(0, -2)}+/`, "malformed");
    assertRejected(`${header}.${payload}!.${signature}`, "malformed");
    assertRejected(`${header}=.${payload}.${signature}`, "malformed");
    assertRejected(`${header}.${payload}.${signature}=`, "malformed");
    assertRejected(`${header}.${payload} .${signature}`, "malformed");
  });

  it("refuses keys too short for HMAC-SHA256 without quoting them", () => {
    const { token } = signAccessToken(MEMBER, KEY, NOW);
    assert.throws(
      () => verifyAccessToken(token, Buffer.from("secret"), NOW),
      (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.ok(!error.message.includes("secret"));
        return true;
      },
    );
    assert.throws(() => signAccessToken(MEMBER, Buffer.alloc(16), NOW), TypeError);
  });
});

describe("deriveJwtKey", () => {
  it("is deterministic, 32 bytes, differs per input and from its input", () => {
    const secret = Buffer.alloc(32, 9);
    const key = deriveJwtKey(secret);
    assert.equal(key.length, 32);
    assert.deepEqual(deriveJwtKey(Buffer.alloc(32, 9)), key);
    assert.notDeepEqual(deriveJwtKey(Buffer.alloc(32, 8)), key);
    assert.notDeepEqual(key, secret);
    assert.ok(!key.equals(secret));
  });

  it("is HKDF-SHA256 with info 'llm-gateway jwt v1' and an empty salt (RFC 5869 computed independently)", () => {
    // Expected value from a separate HMAC-SHA256 implementation of RFC 5869 (extract with a zero
    // salt, one expand block), so a change of hash, salt, info or length is caught.
    const secret = Buffer.from("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "hex");
    assert.equal(
      deriveJwtKey(secret).toString("hex"),
      "82be901f8018ca909a81d35e1765b531cc3b304321eb566c4b0f31a178de35a8",
    );
  });

  it("refuses a secret key that is not 32 bytes", () => {
    assert.throws(() => deriveJwtKey(Buffer.alloc(16)), /32 bytes/);
  });
});
