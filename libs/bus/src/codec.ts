const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON-encode a value as UTF-8 bytes for `Bus.publish`. */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Decode UTF-8 JSON bytes from a `BusMessage`. The type parameter is not checked at runtime. */
export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(decoder.decode(bytes)) as T;
}
