import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DUMMY_PASSWORD_HASH,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
  verifyAgainstDummy,
  verifyPassword,
} from "./passwords.js";

const PASSWORD = "correct horse battery staple";

describe("hashPassword / verifyPassword", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const encoded = await hashPassword(PASSWORD);
    assert.equal(await verifyPassword(PASSWORD, encoded), true);
    assert.equal(await verifyPassword("correct horse battery stapler", encoded), false);
    assert.equal(await verifyPassword("", encoded), false);
    assert.ok(!encoded.includes(PASSWORD));
  });

  it("writes scrypt$16384$8$1$<16-byte salt>$<64-byte hash> in base64url", async () => {
    const encoded = await hashPassword(PASSWORD);
    assert.match(encoded, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    const [, , , , salt, hash] = encoded.split("$") as string[];
    assert.equal(Buffer.from(salt!, "base64url").length, 16);
    assert.equal(Buffer.from(hash!, "base64url").length, 64);
  });

  it("salts: two hashes of one password differ and both verify", async () => {
    const [first, second] = await Promise.all([hashPassword(PASSWORD), hashPassword(PASSWORD)]);
    assert.notEqual(first, second);
    assert.notEqual(first.split("$")[4], second.split("$")[4]);
    assert.equal(await verifyPassword(PASSWORD, first), true);
    assert.equal(await verifyPassword(PASSWORD, second), true);
  });

  it("verifies with the parameters stored in the record (older or raised parameters keep working)", async () => {
    // Built with Node's scrypt at N=1024, r=8, p=2, 32-byte key: not the current parameters.
    const { scryptSync } = await import("node:crypto");
    const salt = Buffer.alloc(16, 3);
    const hash = scryptSync(PASSWORD, salt, 32, { N: 1024, r: 8, p: 2 });
    const encoded = `scrypt$1024$8$2$${salt.toString("base64url")}$${hash.toString("base64url")}`;
    assert.equal(await verifyPassword(PASSWORD, encoded), true);
    assert.equal(await verifyPassword(`${PASSWORD}!`, encoded), false);
  });

  it("normalises Unicode so composed and decomposed spellings match", async () => {
    const composed = "pässwörd-ñ";
    const decomposed = composed.normalize("NFD");
    assert.notEqual(composed, decomposed);
    assert.equal(await verifyPassword(decomposed, await hashPassword(composed)), true);
  });

  it("answers false without throwing for malformed or unknown encodings", async () => {
    const good = await hashPassword(PASSWORD);
    const [scheme, n, r, p, salt, hash] = good.split("$") as [string, string, string, string, string, string];
    const bad: unknown[] = [
      "",
      "not a hash",
      PASSWORD,
      `argon2id$${n}$${r}$${p}$${salt}$${hash}`,
      `bcrypt$2b$10$abcdefghijklmnopqrstuu`,
      `${scheme}$${n}$${r}$${p}$${salt}`,
      `${scheme}$${n}$${r}$${p}$${salt}$${hash}$extra`,
      `${scheme}$abc$${r}$${p}$${salt}$${hash}`,
      `${scheme}$-16384$${r}$${p}$${salt}$${hash}`,
      `${scheme}$016384$${r}$${p}$${salt}$${hash}`,
      `${scheme}$16383$${r}$${p}$${salt}$${hash}`, // N not a power of two
      `${scheme}$1$${r}$${p}$${salt}$${hash}`,
      `${scheme}$1073741824$${r}$${p}$${salt}$${hash}`, // would need 1 TiB
      `${scheme}$${n}$0$${p}$${salt}$${hash}`,
      `${scheme}$${n}$${r}$1000$${salt}$${hash}`, // parallelism bound
      `${scheme}$${n}$${r}$${p}$${salt}=$${hash}`,
      `${scheme}$${n}$${r}$${p}$${salt}$${hash}!`,
      `${scheme}$${n}$${r}$${p}$$${hash}`,
      `${scheme}$${n}$${r}$${p}$${salt}$`,
      `${scheme}$${n}$${r}$${p}$${salt.slice(0, 10)}$${hash}`, // salt too short
      `${scheme}$${n}$${r}$${p}$${salt}$${hash.slice(0, 20)}`, // hash too short
      `${scheme}$${n}$${r}$${p}$${salt}$${"A".repeat(400)}`,
      null,
      undefined,
      42,
      { toString: () => good },
    ];
    for (const encoded of bad) {
      assert.equal(await verifyPassword(PASSWORD, encoded as string), false, String(encoded));
    }
    assert.equal(await verifyPassword(undefined as unknown as string, good), false);
    assert.equal(await verifyPassword("x".repeat(MAX_PASSWORD_LENGTH + 1), good), false);
  });
});

describe("passwordProblem", () => {
  it("accepts passwords from 8 to 1024 characters", () => {
    assert.equal(MIN_PASSWORD_LENGTH, 8);
    assert.equal(passwordProblem("12345678"), null);
    assert.equal(passwordProblem(PASSWORD), null);
    assert.equal(passwordProblem("x".repeat(1024)), null);
    assert.equal(passwordProblem("        "), null);
  });

  it("explains what is wrong otherwise", () => {
    assert.match(passwordProblem(undefined)!, /string/);
    assert.match(passwordProblem(12345678)!, /string/);
    assert.match(passwordProblem(null)!, /string/);
    assert.match(passwordProblem("")!, /at least 8/);
    assert.match(passwordProblem("1234567")!, /at least 8/);
    assert.match(passwordProblem("x".repeat(1025))!, /at most 1024/);
    assert.match(passwordProblem("x".repeat(1_000_000))!, /at most 1024/);
  });

  it("counts characters, not UTF-16 units", () => {
    assert.match(passwordProblem("😀😀😀😀")!, /at least 8/); // 8 UTF-16 units, 4 characters
    assert.equal(passwordProblem("😀".repeat(8)), null);
    assert.equal(passwordProblem("😀".repeat(1024)), null); // 2048 UTF-16 units
    assert.match(passwordProblem("😀".repeat(1025))!, /at most 1024/);
  });
});

describe("dummy verification (no user enumeration by timing)", () => {
  it("verifyAgainstDummy resolves false, whatever the password", async () => {
    assert.equal(await verifyAgainstDummy(PASSWORD), false);
    assert.equal(await verifyAgainstDummy(""), false);
  });

  it("the dummy hash is well formed with the current parameters, so it costs what a real one costs", async () => {
    const current = (await hashPassword(PASSWORD)).split("$");
    const dummy = DUMMY_PASSWORD_HASH.split("$");
    assert.deepEqual(dummy.slice(0, 4), current.slice(0, 4));
    assert.equal(dummy[4]!.length, current[4]!.length);
    assert.equal(dummy[5]!.length, current[5]!.length);
    assert.equal(Buffer.from(dummy[5]!, "base64url").toString("base64url"), dummy[5]);
  });
});
