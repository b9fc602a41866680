import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareVersions, isUpdate } from "./release-source.js";

describe("release versions", () => {
  it("orders by semantic version, a pre-release before its release", () => {
    const sorted = ["1.10.0", "1.2.0", "v1.2.0-rc.10", "1.2.0-rc.2", "0.9.9", "1.2.0-beta"].sort(
      compareVersions,
    );
    assert.deepEqual(sorted, ["0.9.9", "1.2.0-beta", "1.2.0-rc.2", "v1.2.0-rc.10", "1.2.0", "1.10.0"]);
    assert.equal(compareVersions("v1.0.0", "1.0.0"), 0);
  });

  it("offers only newer releases on a channel, any different one when pinned to a tag", () => {
    assert.equal(isUpdate("1.2.0", "1.3.0", "stable"), true);
    assert.equal(isUpdate("1.2.0", "1.2.0", "stable"), false);
    assert.equal(isUpdate("1.2.0", "1.1.0", "latest"), false);
    assert.equal(isUpdate("1.2.0", "1.1.0", "v1.1.0"), true);
    assert.equal(isUpdate("1.1.0", "1.1.0", "1.1.0"), false);
  });
});
