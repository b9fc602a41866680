import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Secrets at rest (upstream keys, channel and integration secrets): AES-256-GCM under
 * SERVICE_SECRET_KEY. Stored form: `v1:<iv b64>:<tag b64>:<ciphertext b64>`.
 */
const VERSION = "v1";

export function parseSecretKey(base64Key: string): Buffer {
  const key = Buffer.from(base64Key, "base64");
  if (key.length !== 32) throw new Error("SERVICE_SECRET_KEY must be 32 bytes, base64-encoded");
  return key;
}

export function encryptSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    VERSION,
    iv.toString("base64"),
    cipher.getAuthTag().toString("base64"),
    ciphertext.toString("base64"),
  ].join(":");
}

export function decryptSecret(stored: string, key: Buffer): string {
  const [version, iv, tag, ciphertext] = stored.split(":");
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) {
    throw new Error("stored secret has an unknown format");
  }
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]).toString(
    "utf8",
  );
}

/**
 * Standalone mode: use the key file in the data directory, creating it (mode 0600) on first start,
 * so a laptop install encrypts secrets without any setup.
 */
export function loadOrCreateKeyFile(path: string): Buffer {
  if (existsSync(path)) return parseSecretKey(readFileSync(path, "utf8").trim());
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, key.toString("base64") + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}
