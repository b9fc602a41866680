import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeBase64Url, encodeBase64Url } from "./base64url.js";

describe("base64url", () => {
  it("round-trips bytes without padding", () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x00, 0x01]);
    const text = encodeBase64Url(bytes);
    assert.equal(text, "-__-AAE");
    assert.deepEqual(decodeBase64Url(text), bytes);
    assert.deepEqual(decodeBase64Url(""), Buffer.alloc(0));
  });

  it("rejects padding, the standard alphabet, stray characters and non-canonical trailing bits", () => {
    assert.equal(decodeBase64Url("AAE="), null);
    assert.equal(decodeBase64Url("+//+AAE"), null);
    assert.equal(decodeBase64Url("AA E"), null);
    assert.equal(decodeBase64Url("AAF"), null); // same bytes as "AAE", different trailing bits
    assert.equal(decodeBase64Url("A"), null); // a lone character cannot encode a byte
  });
});
