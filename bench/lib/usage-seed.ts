import type { Prisma } from "@gw/db";
import { seededRandom } from "@gw/testing";

/**
 * Deterministic, realistic usage records for the /api/usage benchmark: a month of traffic over
 * PROJECTS projects (a few busy, a long tail) and MODELS models (one without a price), in time
 * order with a daily rhythm, as usage-writer receives them. Same seed, same records.
 */

export const PROJECTS = 20;
export const MODELS = 12;
const END_USERS_PER_PROJECT = 2_000;

export interface SeedModel {
  id: string;
  provider: string;
  /** Micro-USD per token, input and output; null = no price (records carry costMicros null). */
  price: { input: number; output: number } | null;
  /** Relative share of the calls. */
  weight: number;
}

export const SEED_MODELS: SeedModel[] = Array.from({ length: MODELS }, (_, i) => ({
  id: `model_bench_${String(i + 1).padStart(2, "0")}`,
  provider: ["openai", "anthropic", "google", "mistral"][i % 4]!,
  price: i === MODELS - 1 ? null : { input: 0.15 + i * 0.4, output: 0.6 + i * 1.5 },
  weight: 1 / (i + 1),
}));

export const SEED_PROJECTS = Array.from({ length: PROJECTS }, (_, i) => ({
  id: `proj_bench_${String(i + 1).padStart(2, "0")}`,
  slug: `bench-${i + 1}`,
  weight: 1 / (i + 1) ** 0.8,
}));

function weighted<T extends { weight: number }>(items: readonly T[], random: () => number): T {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  let pick = random() * total;
  for (const item of items) {
    pick -= item.weight;
    if (pick <= 0) return item;
  }
  return items.at(-1)!;
}

/** Log-normal around `median` (sigma in natural-log units), clamped to [min, max]. */
function logNormal(random: () => number, median: number, sigma: number, min: number, max: number): number {
  const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.min(max, Math.max(min, Math.round(median * Math.exp(sigma * gaussian))));
}

/**
 * `count` records spread over [from, from + days), in time order. Calls follow the clock (busier
 * in the afternoon UTC, about 3x the night), 85 % completion, 12 % routing, 3 % guardrail; 91 %
 * success, 4 % error, 1.5 % timeout, 1.5 % budget_exceeded, 2 % blocked (blocked and a third of
 * budget_exceeded are refused before routing: no model, no cost); 60 % name an end user.
 */
export function* usageRecords(
  count: number,
  from: Date,
  days: number,
  seed = 7,
): Generator<Prisma.UsageRecordCreateManyInput> {
  const random = seededRandom(seed);
  const spanMs = days * 86_400_000;
  for (let i = 0; i < count; i++) {
    // Evenly spaced slots, each nudged by the daily rhythm: an hour-of-day weight of 1..3.
    const base = from.getTime() + (i / count) * spanMs;
    const hour = new Date(base).getUTCHours();
    const jitter = (random() - 0.5) * (spanMs / count) * (1 + Math.sin(((hour - 9) / 24) * 2 * Math.PI));
    const timestamp = new Date(
      Math.min(from.getTime() + spanMs - 1, Math.max(from.getTime(), base + jitter)),
    );
    const project = weighted(SEED_PROJECTS, random);
    const kind = random();
    const roll = random();
    const outcome =
      roll < 0.91
        ? "success"
        : roll < 0.95
          ? "error"
          : roll < 0.965
            ? "timeout"
            : roll < 0.98
              ? "budget_exceeded"
              : "blocked";
    // A guardrail block happens before any model call: it is the request's (completion) record.
    const callType =
      outcome === "blocked" || kind < 0.85 ? "completion" : kind < 0.97 ? "routing" : "guardrail";
    const refused = outcome === "blocked" || (outcome === "budget_exceeded" && random() < 0.33);
    const model = refused ? null : callType === "routing" ? SEED_MODELS[0]! : weighted(SEED_MODELS, random);
    const ran = model !== null && outcome !== "budget_exceeded";
    const inputTokens = ran ? logNormal(random, callType === "routing" ? 150 : 600, 1, 1, 100_000) : 0;
    const outputTokens =
      ran && outcome === "success" ? logNormal(random, callType === "completion" ? 250 : 8, 1, 1, 16_000) : 0;
    const cacheTokens = ran && random() < 0.2 ? Math.floor(inputTokens / 2) : 0;
    const durationMs = refused
      ? logNormal(random, 4, 0.8, 0, 200)
      : outcome === "timeout"
        ? 30_000 + Math.floor(random() * 30_000)
        : logNormal(random, callType === "completion" ? 900 : 300, 0.9, 20, 120_000);
    const costMicros =
      model === null || !ran
        ? model === null
          ? null
          : 0n
        : model.price === null
          ? null
          : BigInt(Math.round(inputTokens * model.price.input + outputTokens * model.price.output));
    const endUser = random() < 0.6 ? `user-${Math.floor(random() ** 2 * END_USERS_PER_PROJECT)}` : null;
    yield {
      id: `usg_${timestamp.getTime().toString(36)}${i.toString(36).padStart(5, "0")}${Math.floor(random() * 1e9).toString(36)}`,
      timestamp,
      projectId: project.id,
      projectSlug: project.slug,
      tokenId: `tok_bench_${project.slug}`,
      modelId: model?.id ?? null,
      provider: model?.provider ?? null,
      inputTokens,
      outputTokens,
      cacheTokens,
      totalTokens: inputTokens + outputTokens,
      costMicros,
      durationMs,
      outcome,
      status:
        outcome === "success"
          ? 200
          : outcome === "blocked"
            ? 400
            : outcome === "budget_exceeded"
              ? 429
              : outcome === "timeout"
                ? 504
                : 502,
      traceId: `trace_${i.toString(36)}`,
      callType,
      sessionId: random() < 0.3 ? `sess_${Math.floor(random() * 50_000)}` : null,
      endUserId: endUser,
      tags: { team: `team-${Math.floor(random() * 5)}` },
      guardrailTriggered: outcome === "blocked" ? "regex:secret" : null,
      blockedBy: outcome === "blocked" ? "regex:secret" : null,
      piiRedacted: random() < 0.05 ? ["email"] : [],
      trace: model
        ? [
            { stage: "route", policy: "default", candidates: 3, chosen: model.id },
            { stage: "upstream", provider: model.provider, status: outcome === "success" ? 200 : 502 },
          ]
        : [{ stage: "guardrail", rule: "regex:secret", outcome: "blocked" }],
      errorMessage: outcome === "success" || outcome === "blocked" ? null : `upstream ${outcome}`,
      streamed: random() < 0.4,
      endpoint: "/v1/chat/completions",
    };
  }
}
