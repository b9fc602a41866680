import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newId } from "../src/ids.js";

describe("newId", () => {
  it("returns <prefix>_<20 base62 characters>", () => {
    assert.match(newId("proj"), /^proj_[0-9A-Za-z]{20}$/);
    assert.match(newId("tok_"), /^tok_[0-9A-Za-z]{20}$/, "a trailing underscore in the prefix is tolerated");
    assert.match(newId("msg", 32), /^msg_[0-9A-Za-z]{32}$/);
  });

  it("does not repeat over many draws and uses the whole alphabet", () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId("x")));
    assert.equal(ids.size, 20_000);
    const characters = new Set([...ids].flatMap((id) => [...id.slice(2)]));
    assert.equal(characters.size, 62);
  });

  it("rejects malformed prefixes and too-short ids", () => {
    for (const prefix of ["", "_", "Proj", "pr oj", "1proj", "a-b"]) {
      assert.throws(() => newId(prefix), /prefix/, `prefix ${JSON.stringify(prefix)}`);
    }
    assert.throws(() => newId("proj", 4), /randomLength/);
  });
});
