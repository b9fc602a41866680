import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createDatabase, type Database } from "@gw/db";
import { GatewayError } from "@gw/errors";
import {
  createResponseStore,
  STORED_RESPONSE_RETENTION_MS,
  scheduleResponseCleanup,
} from "./stored-responses.js";

let db: Database;
before(async () => {
  db = await createDatabase({});
  await db.migrate();
});
after(() => db.close());

const turn = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];

test("a stored conversation is found by its project only", async () => {
  const store = createResponseStore(db.prisma);
  await store.save("resp_a", "proj_1", turn);
  assert.deepEqual(await store.conversation("resp_a", "proj_1"), turn);
  await assert.rejects(store.conversation("resp_a", "proj_2"), (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    return error.status === 400 && error.code === "previous_response_not_found";
  });
});

test("responses older than the retention are deleted, newer ones kept", async () => {
  const store = createResponseStore(db.prisma);
  await store.save("resp_old", "proj_1", turn);
  await store.save("resp_new", "proj_1", turn);
  await db.prisma.storedResponse.update({
    where: { id: "resp_old" },
    data: { createdAt: new Date(Date.now() - STORED_RESPONSE_RETENTION_MS - 60_000) },
  });
  const logged: object[] = [];
  const stop = scheduleResponseCleanup(store, { info: (obj) => logged.push(obj), warn: () => {} });
  for (let i = 0; i < 100 && logged.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  stop();
  assert.deepEqual(logged, [{ count: 1 }]);
  await assert.rejects(store.conversation("resp_old", "proj_1"));
  assert.deepEqual(await store.conversation("resp_new", "proj_1"), turn);
});
