import { performance } from "node:perf_hooks";
import { createCallContext, LazyAbortController } from "./src/call-context.js";

const response = { x: 1 };
const handler = async (_r: unknown, _c: unknown) => response;
async function run(label: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 5000; i++) await fn();
  const N = 100000;
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(label.padEnd(28), (((performance.now() - t) * 1000) / N).toFixed(3), "µs/call");
}
const EMPTY = Object.freeze({}) as Record<string, string>;
const variants: Record<string, () => Promise<unknown>> = {
  direct: () => handler(1, 2),
  thenOnly: () =>
    handler(1, 2).then(
      (r) => r,
      (e) => {
        throw e;
      },
    ),
  promiseWrap: () =>
    new Promise((res, rej) => {
      handler(1, 2).then(res, rej);
    }),
  lazyAbort: () => {
    const a = new LazyAbortController();
    return handler(1, a);
  },
  ctx: () => {
    const a = new LazyAbortController();
    const c = createCallContext(undefined, EMPTY, a);
    return handler(1, c);
  },
  ctxPlain: () => {
    const a = new LazyAbortController();
    const c = { deadline: undefined, metadata: EMPTY, a };
    return handler(1, c);
  },
  datenow: () => {
    Date.now();
    return handler(1, 2);
  },
  closures: () =>
    new Promise((res, rej) => {
      let settled = false;
      const finish = () => {
        if (settled) return false;
        settled = true;
        return true;
      };
      const stop = (c: number) => {
        if (!finish()) return;
        rej(c);
      };
      const onAbort = () => stop(1);
      void onAbort;
      handler(1, 2).then(
        (r) => {
          if (finish()) res(r);
        },
        (e) => {
          if (finish()) rej(e);
        },
      );
    }),
};
for (let k = 0; k < 2; k++) for (const [name, fn] of Object.entries(variants)) await run(name, fn);
