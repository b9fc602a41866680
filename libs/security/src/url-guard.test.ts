import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertFetchableUrl, guardedLookup, isMetadataAddress, UrlRefusedError } from "./url-guard.js";

describe("security: url guard", () => {
  it("knows link-local and metadata addresses in every spelling", () => {
    for (const address of [
      "169.254.169.254",
      "169.254.0.1",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "fe80::1",
      "fd00:ec2::254",
    ])
      assert.equal(isMetadataAddress(address), true, address);
    for (const address of ["127.0.0.1", "10.0.0.1", "::1", "fd00:ec2::253", "example.com"])
      assert.equal(isMetadataAddress(address), false, address);
  });

  it("refuses other schemes and literal metadata hosts, however written", () => {
    for (const url of [
      "http://169.254.169.254/x",
      "http://2852039166/",
      "http://0xa9.0xfe.0xa9.0xfe/",
      "http://[::ffff:169.254.169.254]/",
      "https://[fd00:ec2::254]/",
    ])
      assert.throws(() => assertFetchableUrl(new URL(url)), UrlRefusedError, url);
    assert.throws(() => assertFetchableUrl(new URL("file:///etc/passwd")), /only http and https/);
    assert.doesNotThrow(() => assertFetchableUrl(new URL("http://127.0.0.1:8080/catalog")));
  });

  it("lets a caller allow metadata URLs explicitly", () => {
    assert.doesNotThrow(() => assertFetchableUrl(new URL("http://169.254.169.254/"), true));
    assert.throws(() => assertFetchableUrl(new URL("http://169.254.169.254/"), false), UrlRefusedError);
  });

  it("lets an operator allow metadata URLs", () => {
    process.env.SERVICE_ALLOW_METADATA_URLS = "1";
    try {
      assert.doesNotThrow(() => assertFetchableUrl(new URL("http://169.254.169.254/")));
    } finally {
      delete process.env.SERVICE_ALLOW_METADATA_URLS;
    }
  });

  it("the guarded lookup answers both single and all-address lookups", async () => {
    const single = await new Promise<string>((resolve, reject) =>
      guardedLookup("localhost", {}, (error, address) =>
        error ? reject(error) : resolve(address as string),
      ),
    );
    assert.ok(single === "127.0.0.1" || single === "::1");
    const all = await new Promise<unknown>((resolve, reject) =>
      guardedLookup("localhost", { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses),
      ),
    );
    assert.ok(Array.isArray(all) && all.length > 0);
  });
});
