import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BUILTIN_CATALOG } from "./builtin-catalog.js";
import { catalogFileSchema } from "./format.js";
import { mergeCatalogs } from "./merge.js";

describe("catalog: built-in data and merge", () => {
  it("the built-in catalog fits the format and stays small", () => {
    assert.ok(catalogFileSchema.safeParse(BUILTIN_CATALOG).success);
    const models = BUILTIN_CATALOG.providers.flatMap((p) => p.models);
    assert.ok(models.length <= 40);
    assert.equal(new Set(models.map((m) => m.id)).size, models.length, "model ids are unique");
  });

  it("merges providers and models by id, later layers replacing whole entries", () => {
    const model = (id: string, inputPrice: number, extra: object = {}) => ({
      id,
      name: id,
      contextWindow: 1000,
      inputPrice,
      outputPrice: 1,
      capabilities: [],
      ...extra,
    });
    const merged = mergeCatalogs([
      { providers: [{ id: "a", name: "A", models: [model("x", 1, { cachePrice: 0.5 }), model("y", 2)] }] },
      { providers: [{ id: "b", name: "B", models: [model("z", 3)] }] },
      { providers: [{ id: "a", name: "A2", models: [model("x", 9)] }] },
    ]);
    assert.deepEqual(
      merged.map((p) => [p.id, p.name, p.models.map((m) => `${m.id}:${m.inputPrice}`)]),
      [
        ["a", "A2", ["x:9", "y:2"]],
        ["b", "B", ["z:3"]],
      ],
    );
    assert.equal(merged[0]!.models[0]!.cachePrice, undefined, "no field survives from the replaced entry");
  });
});
