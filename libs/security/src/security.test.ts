import assert from "node:assert/strict";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { decryptSecret, encryptSecret, loadOrCreateKeyFile, parseSecretKey } from "./secrets.js";
import { digestsEqual, generateProjectToken, hashToken, PROJECT_TOKEN_PREFIX } from "./tokens.js";

describe("project tokens", () => {
  it("have the sk-rt- prefix, are unique, and hash to 64 hex characters", () => {
    const a = generateProjectToken();
    const b = generateProjectToken();
    assert.ok(a.startsWith(PROJECT_TOKEN_PREFIX));
    assert.equal(a.length, PROJECT_TOKEN_PREFIX.length + 40);
    assert.notEqual(a, b);
    assert.match(hashToken(a), /^[0-9a-f]{64}$/);
    assert.ok(digestsEqual(hashToken(a), hashToken(a)));
    assert.ok(!digestsEqual(hashToken(a), hashToken(b)));
    assert.ok(!digestsEqual("", ""));
  });
});

describe("secrets at rest", () => {
  it("round-trip, never store the plain text, and detect tampering", () => {
    const key = parseSecretKey(Buffer.alloc(32, 7).toString("base64"));
    const stored = encryptSecret("sk-upstream-123", key);
    assert.ok(!stored.includes("sk-upstream-123"));
    assert.equal(decryptSecret(stored, key), "sk-upstream-123");
    const parts = stored.split(":");
    parts[3] = Buffer.from("tampered").toString("base64");
    assert.throws(() => decryptSecret(parts.join(":"), key));
  });

  it("rejects keys that are not 32 bytes", () => {
    assert.throws(() => parseSecretKey(Buffer.alloc(16).toString("base64")), /32 bytes/);
  });

  it("creates the standalone key file with mode 0600 and reuses it", () => {
    const path = join(mkdtempSync(join(tmpdir(), "gw-key-")), "secret.key");
    const first = loadOrCreateKeyFile(path);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(loadOrCreateKeyFile(path), first);
  });
});
