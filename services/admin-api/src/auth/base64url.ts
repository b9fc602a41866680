/**
 * Strict base64url (RFC 4648 §5, no padding), shared by the JWT and password-hash codecs.
 *
 * Node's own decoder is lenient: it skips characters outside the alphabet and ignores
 * trailing bits, so many different strings decode to the same bytes. Accepting only the
 * canonical spelling means one token or stored hash has exactly one textual form.
 */
const ALPHABET = /^[A-Za-z0-9_-]*$/;

export function encodeBase64Url(bytes: Buffer | string): string {
  return Buffer.from(bytes).toString("base64url");
}

/** The decoded bytes, or null when `text` is not canonical unpadded base64url. */
export function decodeBase64Url(text: string): Buffer | null {
  if (!ALPHABET.test(text)) return null;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : null;
}
