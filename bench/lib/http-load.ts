import { Agent, request } from "undici";

/**
 * The load generator: undici `request` over keep-alive connections, the same code for the direct
 * floor and for the gateway. Every loop is bounded by a count or a deadline.
 */
export interface HttpTarget {
  name: string;
  /** Full URL of the chat-completions endpoint. */
  url: string;
  headers: Record<string, string>;
}

export const CHAT_BODY = JSON.stringify({ model: "x", messages: [{ role: "user", content: "hello there" }] });
export const STREAM_BODY = JSON.stringify({
  model: "x",
  messages: [{ role: "user", content: "hello there" }],
  stream: true,
});

function oneConnection(): Agent {
  return new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 30_000 });
}

async function post(agent: Agent, target: HttpTarget, body: string) {
  return request(target.url, {
    method: "POST",
    dispatcher: agent,
    headers: { ...target.headers, "content-type": "application/json" },
    body,
  });
}

async function expectOk(statusCode: number, text: () => Promise<string>, target: HttpTarget): Promise<void> {
  if (statusCode !== 200)
    throw new Error(`${target.name}: HTTP ${statusCode}: ${(await text()).slice(0, 300)}`);
}

/** Sequential non-streaming calls on one connection: warm-up, then `calls` timed ones (ms, to the last body byte). */
export async function sequentialLatency(
  target: HttpTarget,
  warmup: number,
  calls: number,
): Promise<number[]> {
  const agent = oneConnection();
  const samples: number[] = [];
  try {
    for (let i = 0; i < warmup + calls; i++) {
      const started = performance.now();
      const response = await post(agent, target, CHAT_BODY);
      const text = await response.body.text();
      const elapsed = performance.now() - started;
      await expectOk(response.statusCode, async () => text, target);
      if (i >= warmup) samples.push(elapsed);
    }
  } finally {
    await agent.close();
  }
  return samples;
}

/** Sequential streamed calls on one connection: ms until the first body chunk (the whole stream is read). */
export async function streamingTtfb(
  target: HttpTarget,
  warmup: number,
  calls: number,
): Promise<{ ttfb: number[]; total: number[] }> {
  const agent = oneConnection();
  const ttfb: number[] = [];
  const total: number[] = [];
  try {
    for (let i = 0; i < warmup + calls; i++) {
      const started = performance.now();
      // No trace event: the first chunk is then the first upstream-derived one, a fair TTFB.
      const response = await post(
        agent,
        { ...target, headers: { ...target.headers, "x-service-no-trace": "1" } },
        STREAM_BODY,
      );
      if (response.statusCode !== 200)
        await expectOk(response.statusCode, () => response.body.text(), target);
      let first: number | undefined;
      for await (const _chunk of response.body) first ??= performance.now();
      const ended = performance.now();
      if (first === undefined) throw new Error(`${target.name}: empty stream`);
      if (i >= warmup) {
        ttfb.push(first - started);
        total.push(ended - started);
      }
    }
  } finally {
    await agent.close();
  }
  return { ttfb, total };
}

export interface SaturationResult {
  connections: number;
  seconds: number;
  ok: number;
  failed: number;
  requestsPerSecond: number;
  firstFailure?: string;
}

/** `connections` closed-loop clients, each one request at a time, for `seconds`. */
export async function saturate(
  target: HttpTarget,
  connections: number,
  seconds: number,
): Promise<SaturationResult> {
  const agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 });
  let ok = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline && failed < 1000) {
      try {
        const response = await post(agent, target, CHAT_BODY);
        const text = await response.body.text();
        if (response.statusCode === 200) ok++;
        else {
          failed++;
          firstFailure ??= `HTTP ${response.statusCode}: ${text.slice(0, 200)}`;
        }
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  await agent.close();
  return {
    connections,
    seconds: elapsed,
    ok,
    failed,
    requestsPerSecond: ok / elapsed,
    ...(firstFailure ? { firstFailure } : {}),
  };
}

export interface FixedRateResult {
  rate: number;
  seconds: number;
  /** Latency of each request from its scheduled start (so queueing delay counts), ms. */
  samples: number[];
  failed: number;
  firstFailure?: string;
}

/**
 * Open-loop load: one request every 1000/rate ms whether or not earlier ones finished, timed from
 * the moment it was due (no coordinated omission: a stall shows up in every request it delays).
 */
export async function fixedRate(target: HttpTarget, rate: number, seconds: number): Promise<FixedRateResult> {
  const agent = new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
  const samples: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      (async () => {
        try {
          const response = await post(agent, target, CHAT_BODY);
          const text = await response.body.text();
          if (response.statusCode === 200) samples.push(performance.now() - due);
          else {
            failed++;
            firstFailure ??= `HTTP ${response.statusCode}: ${text.slice(0, 200)}`;
          }
        } catch (error) {
          failed++;
          firstFailure ??= (error as Error).message;
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  await agent.close();
  return { rate, seconds, samples, failed, ...(firstFailure ? { firstFailure } : {}) };
}
