import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * User-supplied URLs must not reach cloud metadata endpoints (DESIGN 6): the link-local ranges
 * (169.254.0.0/16, fe80::/10, which hold 169.254.169.254) and AWS's IPv6 endpoint fd00:ec2::254.
 * Loopback and private ranges stay allowed: an operator's own catalog mirror often lives there.
 * `SERVICE_ALLOW_METADATA_URLS=1` lifts the refusal (read at each call, so tests and operators
 * can flip it without a restart).
 */
const METADATA = new BlockList();
METADATA.addSubnet("169.254.0.0", 16, "ipv4");
METADATA.addSubnet("fe80::", 10, "ipv6");
METADATA.addAddress("fd00:ec2::254", "ipv6");

export class UrlRefusedError extends Error {}

export function metadataUrlsAllowed(): boolean {
  return process.env.SERVICE_ALLOW_METADATA_URLS === "1";
}

/** Whether an IP address is link-local or a metadata endpoint (IPv4-mapped IPv6 included). */
export function isMetadataAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return METADATA.check(address, family === 6 ? "ipv6" : "ipv4");
}

/**
 * Checks a URL before a request: http or https only, and no literal metadata address (a literal
 * IP skips DNS, so `guardedLookup` would never see it). Throws UrlRefusedError with the reason.
 * `allowMetadata` lets a caller that reads its own configuration (e.g. a service's config flag)
 * decide; without it the environment variable decides.
 */
export function assertFetchableUrl(url: URL, allowMetadata: boolean = metadataUrlsAllowed()): void {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UrlRefusedError(`only http and https URLs are fetched, not ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowMetadata && isMetadataAddress(host))
    throw new UrlRefusedError("refused: the address is link-local or a cloud metadata endpoint");
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) that refuses hostnames resolving to a metadata address. Checking the
 * addresses the socket actually connects to (not a separate earlier lookup) leaves no window for a
 * DNS answer to change in between.
 */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  const wantsAll = (options as { all?: boolean }).all === true;
  dnsLookup(hostname, { ...(options as LookupAllOptions), all: true }, (error, addresses) => {
    if (error) return callback(error, wantsAll ? [] : "");
    if (!metadataUrlsAllowed() && addresses.some((a) => isMetadataAddress(a.address))) {
      const refusal = new UrlRefusedError(
        `refused: ${hostname} resolves to a link-local or cloud metadata address`,
      ) as NodeJS.ErrnoException;
      refusal.code = "EMETADATA";
      return callback(refusal, wantsAll ? [] : "");
    }
    if (wantsAll) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "");
    callback(null, first.address, first.family);
  });
}
