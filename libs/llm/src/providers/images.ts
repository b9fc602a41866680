import type { ImagePart } from "../canonical/types.js";

/**
 * Images arrive in the hub either as a URL (http(s) or `data:`) or as raw base64 with a media type;
 * each provider wants one particular form. These helpers convert between them without decoding
 * the bytes.
 */

export interface Base64Image {
  mediaType: string;
  data: string;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/is;

/** `data:<type>[;params];base64,<data>` split into its media type and data; null for anything else. */
export function parseDataUrl(url: string): Base64Image | null {
  const match = DATA_URL.exec(url.trim());
  if (!match) return null;
  const data = (match[3] ?? "").replace(/\s+/g, "");
  return { mediaType: normalizeMediaType(match[1] || sniffMediaType(data)), data };
}

/** The image as base64 bytes when the client sent bytes (raw or as a `data:` URL); null for a remote URL. */
export function imageBase64(part: ImagePart): Base64Image | null {
  if (part.base64 !== undefined) {
    const data = part.base64.replace(/\s+/g, "");
    return { mediaType: normalizeMediaType(part.mediaType || sniffMediaType(data)), data };
  }
  return part.url !== undefined ? parseDataUrl(part.url) : null;
}

/** The image as one URL: the client's URL as given, or a `data:` URL built from raw base64. */
export function imageUrl(part: ImagePart): string {
  if (part.url !== undefined) return part.url;
  const image = imageBase64(part);
  return image ? `data:${image.mediaType};base64,${image.data}` : "";
}

/** A remote (non-`data:`) URL, or undefined. */
export function remoteImageUrl(part: ImagePart): string | undefined {
  if (part.base64 !== undefined || part.url === undefined) return undefined;
  return parseDataUrl(part.url) ? undefined : part.url;
}

/** `image/jpg` is common in the wild but not a registered type; providers that check want `image/jpeg`. */
export function normalizeMediaType(mediaType: string): string {
  const lower = mediaType.trim().toLowerCase();
  return lower === "image/jpg" ? "image/jpeg" : lower;
}

/** The media type from the first bytes (PNG, JPEG, GIF, WebP signatures in base64), PNG when unknown. */
export function sniffMediaType(base64: string): string {
  if (base64.startsWith("/9j/")) return "image/jpeg";
  if (base64.startsWith("R0lGOD")) return "image/gif";
  if (base64.startsWith("UklGR")) return "image/webp";
  return "image/png";
}

/** A media type guessed from a URL's file extension (Gemini's `fileData` asks for one). */
export function mediaTypeFromUrl(url: string): string | undefined {
  const path = url.split(/[?#]/)[0]?.toLowerCase() ?? "";
  if (/\.jpe?g$/.test(path)) return "image/jpeg";
  if (path.endsWith(".png")) return "image/png";
  if (path.endsWith(".gif")) return "image/gif";
  if (path.endsWith(".webp")) return "image/webp";
  if (path.endsWith(".heic")) return "image/heic";
  if (path.endsWith(".heif")) return "image/heif";
  return undefined;
}
