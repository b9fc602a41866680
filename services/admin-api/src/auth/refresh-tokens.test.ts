import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import {
  generateRefreshToken,
  hashRefreshToken,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL_MS,
} from "./refresh-tokens.js";

describe("refresh tokens", () => {
  it("are rt_ and 32 random bytes in unpadded base64url", () => {
    const { token } = generateRefreshToken();
    assert.equal(REFRESH_TOKEN_PREFIX, "rt_");
    assert.match(token, /^rt_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token.slice(3), "base64url").length, 32);
  });

  it("come with the hex SHA-256 of the full token, which is what hashRefreshToken computes", () => {
    const { token, tokenHash } = generateRefreshToken();
    assert.match(tokenHash, /^[0-9a-f]{64}$/);
    assert.equal(tokenHash, createHash("sha256").update(token).digest("hex"));
    assert.equal(hashRefreshToken(token), tokenHash);
    assert.notEqual(hashRefreshToken(token.slice(3)), tokenHash); // the prefix is part of the hash
    assert.ok(!tokenHash.includes(token.slice(3)));
  });

  it("hash a known value to its known digest", () => {
    assert.equal(hashRefreshToken("rt_test"), createHash("sha256").update("rt_test", "utf8").digest("hex"));
    assert.equal(hashRefreshToken("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("are unique over 1000 draws, and so are their hashes", () => {
    const tokens = new Set<string>();
    const hashes = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { token, tokenHash } = generateRefreshToken();
      tokens.add(token);
      hashes.add(tokenHash);
    }
    assert.equal(tokens.size, 1000);
    assert.equal(hashes.size, 1000);
  });

  it("live 30 days", () => {
    assert.equal(REFRESH_TOKEN_TTL_MS, 30 * 24 * 60 * 60 * 1000);
  });
});
