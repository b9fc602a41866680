import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GatewayError } from "@gw/errors";
import { clientFormat } from "./index.js";
import type { ClientFormat, ClientFormatName } from "./types.js";

// Client bodies are untrusted: whatever arrives, parseRequest either returns or throws a 400
// GatewayError. A TypeError or RangeError escaping would become a 500 (and a crash report).

const VALID: Record<ClientFormatName, unknown> = {
  chat: {
    model: "m",
    messages: [
      { role: "system", content: "s" },
      {
        role: "user",
        content: [
          { type: "text", text: "t" },
          { type: "image_url", image_url: { url: "u" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c", content: "r" },
    ],
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
    tool_choice: { type: "function", function: { name: "f" } },
    response_format: { type: "json_schema", json_schema: { name: "n", schema: {} } },
    stop: ["x"],
    max_tokens: 5,
    temperature: 1,
    stream: true,
    user: "u",
  },
  responses: {
    model: "m",
    instructions: "i",
    input: [
      {
        role: "user",
        content: [
          { type: "input_text", text: "t" },
          { type: "input_image", image_url: "u" },
        ],
      },
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c", output: "r" },
    ],
    tools: [{ type: "function", name: "f", parameters: {} }],
    tool_choice: "auto",
    text: { format: { type: "json_schema", name: "n", schema: {} } },
    max_output_tokens: 5,
    previous_response_id: "p",
    store: false,
  },
  messages: {
    model: "m",
    max_tokens: 5,
    system: [{ type: "text", text: "s" }],
    messages: [
      {
        role: "user",
        content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "A" } }],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: { a: 1 } }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "r" }] }],
      },
    ],
    tools: [{ name: "f", input_schema: { type: "object" } }],
    tool_choice: { type: "tool", name: "f" },
    stop_sequences: ["x"],
    metadata: { user_id: "u" },
  },
};

const NAMES: ClientFormatName[] = ["chat", "responses", "messages"];

function parsesOr400(format: ClientFormat, body: unknown): "ok" | "400" {
  try {
    format.parseRequest(body);
    return "ok";
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) return "400";
    throw error;
  }
}

function deeplyNested(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Deterministic PRNG (mulberry32), so a failing mutation can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every path to a value inside a JSON value. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push(...paths(item, [...prefix, index]));
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...prefix, key]));
  }
  return out;
}

function replaced(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = replaced(copy[head], rest, replacement);
  return copy;
}

const HOSTILE_VALUES: unknown[] = [
  null,
  undefined,
  0,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER + 2,
  "",
  "__proto__",
  "constructor",
  true,
  [],
  [null],
  {},
  { __proto__: null },
  JSON.parse('{"__proto__": {"type": "text", "text": "x"}}'),
  [[[[[]]]]],
];

describe("hostile request bodies", () => {
  it("clientFormat maps each name to its converter", () => {
    for (const name of NAMES) assert.equal(clientFormat(name).name, name);
  });

  for (const name of NAMES) {
    const format = clientFormat(name);

    it(`${name}: the valid sample parses`, () => {
      assert.equal(parsesOr400(format, VALID[name]), "ok");
    });

    it(`${name}: non-object bodies are 400`, () => {
      for (const body of [undefined, null, 0, "{}", true, [], [VALID[name]]]) {
        assert.equal(parsesOr400(format, body), "400");
      }
    });

    it(`${name}: every value replaced by every hostile value gives ok or 400, never another error`, () => {
      let rejected = 0;
      for (const path of paths(VALID[name])) {
        for (const value of HOSTILE_VALUES) {
          if (parsesOr400(format, replaced(VALID[name], path, value)) === "400") rejected++;
        }
      }
      assert.ok(rejected > 0);
    });

    it(`${name}: random multi-point mutations give ok or 400`, () => {
      const next = random(name.length * 7919);
      const all = paths(VALID[name]);
      for (let round = 0; round < 2000; round++) {
        let body = VALID[name];
        for (let n = 0; n < 3; n++) {
          const path = all[Math.floor(next() * all.length)] ?? [];
          body = replaced(body, path, HOSTILE_VALUES[Math.floor(next() * HOSTILE_VALUES.length)]);
        }
        parsesOr400(format, body);
      }
    });

    it(`${name}: __proto__ keys from JSON.parse are data, never prototypes`, () => {
      const text = JSON.stringify(VALID[name]).replace(
        '"model":"m"',
        '"model":"m","__proto__":{"stream":"yes"}',
      );
      const parsed = format.parseRequest(JSON.parse(text));
      assert.equal(typeof parsed.request.stream, "boolean");
      // A body whose only fields hide under __proto__ has none of them.
      assert.equal(parsesOr400(format, JSON.parse(`{"__proto__": ${JSON.stringify(VALID[name])}}`)), "400");
      assert.equal(({} as Record<string, unknown>).stream, undefined, "Object.prototype untouched");
    });

    it(`${name}: huge arrays are handled (100k items) without crashing`, () => {
      const junk = {
        ...(VALID[name] as object),
        messages: new Array(100_000).fill(null),
        input: new Array(100_000).fill(7),
      };
      assert.equal(parsesOr400(format, junk), "400");
      const manyStops = {
        ...(VALID[name] as object),
        stop: new Array(100_000).fill("x"),
        stop_sequences: new Array(100_000).fill("x"),
      };
      assert.equal(parsesOr400(format, manyStops), "ok");
    });
  }

  it("deeply nested values are 400 where they must be serialized, kept as-is where they are schemas", () => {
    const deep = deeplyNested(200_000);
    const chat = clientFormat("chat");
    assert.equal(
      parsesOr400(chat, {
        messages: [
          {
            role: "assistant",
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: deep } }],
          },
        ],
      }),
      "400",
    );
    const messages = clientFormat("messages");
    assert.equal(
      parsesOr400(messages, {
        max_tokens: 1,
        messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: deep }] }],
      }),
      "400",
    );
    const responses = clientFormat("responses");
    assert.equal(
      parsesOr400(responses, { input: [{ type: "function_call_output", call_id: "c", output: deep }] }),
      "400",
    );
    // Schemas are passed on by reference: the parser does not walk them.
    const parsed = chat.parseRequest({
      messages: [{ role: "user", content: "x" }],
      tools: [{ type: "function", function: { name: "f", parameters: deep } }],
    });
    assert.equal(parsed.request.tools?.[0]?.parameters, deep);
    // Deeply nested content arrays fail at the first level.
    let nested: unknown = [];
    for (let i = 0; i < 100_000; i++) nested = [nested];
    assert.equal(parsesOr400(chat, { messages: [{ role: "user", content: nested }] }), "400");
  });

  it("error messages quote hostile strings briefly", () => {
    try {
      clientFormat("chat").parseRequest({ messages: [{ role: "x".repeat(100_000), content: "" }] });
      assert.fail("expected a 400");
    } catch (error) {
      assert.ok(error instanceof GatewayError);
      assert.ok(error.message.length < 200, error.message);
    }
  });
});
