import { type CatalogFile, catalogFileSchema } from "./format.js";

/**
 * The catalog that ships with the gateway (DESIGN 4), so a fresh install lists providers and
 * prices with no network. USD per 1,000 tokens, public list prices as of 2025: they change, so an
 * operator must verify them (README.md); local Ollama models cost nothing. `custom` has no models:
 * its upstreams are whatever the operator points at.
 */
type Extras = { cachePrice?: number; cacheWritePrice?: number; pricingTiers?: unknown[] };

// Capability sets, in the API's names (routing maps stored aliases onto them).
const FULL = ["functionCalling", "json", "vision"];
const TOOLS_JSON = ["functionCalling", "json"];
const TV = ["functionCalling", "vision"];
const C25 = { cachePrice: 0.000025 };

function cache(cachePrice: number, cacheWritePrice: number): Extras {
  return { cachePrice, cacheWritePrice };
}

function m(
  id: string,
  name: string,
  contextWindow: number,
  inputPrice: number,
  outputPrice: number,
  extras: Extras,
  capabilities: string[],
) {
  return { id, name, contextWindow, inputPrice, outputPrice, ...extras, capabilities };
}

const BUILTIN = {
  providers: [
    {
      id: "openai",
      name: "OpenAI",
      models: [
        m("gpt-5", "GPT-5", 400_000, 0.00125, 0.01, { cachePrice: 0.000125 }, FULL),
        m("gpt-5-mini", "GPT-5 mini", 400_000, 0.00025, 0.002, { cachePrice: 0.000025 }, FULL),
        m("gpt-4.1", "GPT-4.1", 1_047_576, 0.002, 0.008, { cachePrice: 0.0005 }, FULL),
        m("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 0.0004, 0.0016, { cachePrice: 0.0001 }, FULL),
        m("gpt-4o", "GPT-4o", 128_000, 0.0025, 0.01, { cachePrice: 0.00125 }, FULL),
        m("gpt-4o-mini", "GPT-4o mini", 128_000, 0.00015, 0.0006, { cachePrice: 0.000075 }, FULL),
        m("o3-mini", "o3-mini", 200_000, 0.0011, 0.0044, { cachePrice: 0.00055 }, TOOLS_JSON),
      ],
    },
    {
      id: "anthropic",
      name: "Anthropic",
      models: [
        m("claude-opus-4-1-20250805", "Claude Opus 4.1", 200_000, 0.015, 0.075, cache(0.0015, 0.01875), TV),
        m("claude-sonnet-4-20250514", "Claude Sonnet 4", 200_000, 0.003, 0.015, cache(0.0003, 0.00375), TV),
        m(
          "claude-3-7-sonnet-20250219",
          "Claude Sonnet 3.7",
          200_000,
          0.003,
          0.015,
          cache(0.0003, 0.00375),
          TV,
        ),
        m("claude-3-5-haiku-20241022", "Claude Haiku 3.5", 200_000, 0.0008, 0.004, cache(0.00008, 0.001), [
          "functionCalling",
        ]),
      ],
    },
    {
      id: "gemini",
      name: "Google Gemini",
      models: [
        m(
          "gemini-2.5-pro",
          "Gemini 2.5 Pro",
          1_048_576,
          0.00125,
          0.01,
          {
            cachePrice: 0.00031,
            // Prompts longer than 200k tokens are billed at the higher rate.
            pricingTiers: [
              { fromTokens: 200_000, inputPrice: 0.0025, outputPrice: 0.015, cachePrice: 0.000625 },
            ],
          },
          FULL,
        ),
        m("gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576, 0.0003, 0.0025, { cachePrice: 0.000075 }, FULL),
        m("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1_048_576, 0.0001, 0.0004, C25, FULL),
        m("gemini-2.0-flash", "Gemini 2.0 Flash", 1_048_576, 0.0001, 0.0004, C25, FULL),
      ],
    },
    {
      id: "mistral",
      name: "Mistral AI",
      models: [
        m("mistral-large-latest", "Mistral Large", 131_072, 0.002, 0.006, {}, TOOLS_JSON),
        m("mistral-medium-latest", "Mistral Medium 3", 131_072, 0.0004, 0.002, {}, FULL),
        m("mistral-small-latest", "Mistral Small 3.2", 131_072, 0.0001, 0.0003, {}, FULL),
        m("codestral-latest", "Codestral", 256_000, 0.0003, 0.0009, {}, TOOLS_JSON),
      ],
    },
    {
      id: "cohere",
      name: "Cohere",
      models: [
        m("command-a-03-2025", "Command A", 256_000, 0.0025, 0.01, {}, TOOLS_JSON),
        m("command-r-plus-08-2024", "Command R+", 128_000, 0.0025, 0.01, {}, TOOLS_JSON),
        m("command-r-08-2024", "Command R", 128_000, 0.00015, 0.0006, {}, TOOLS_JSON),
        m("command-r7b-12-2024", "Command R7B", 128_000, 0.0000375, 0.00015, {}, TOOLS_JSON),
      ],
    },
    {
      id: "xai",
      name: "xAI",
      models: [
        m("grok-4", "Grok 4", 256_000, 0.003, 0.015, { cachePrice: 0.00075 }, FULL),
        m("grok-3", "Grok 3", 131_072, 0.003, 0.015, { cachePrice: 0.00075 }, TOOLS_JSON),
        m("grok-3-mini", "Grok 3 Mini", 131_072, 0.0003, 0.0005, { cachePrice: 0.000075 }, TOOLS_JSON),
      ],
    },
    {
      id: "ollama",
      name: "Ollama (local)",
      models: [
        m("llama3.1:8b", "Llama 3.1 8B", 131_072, 0, 0, {}, TOOLS_JSON),
        m("llama3.2:3b", "Llama 3.2 3B", 131_072, 0, 0, {}, TOOLS_JSON),
        m("qwen2.5:7b", "Qwen 2.5 7B", 32_768, 0, 0, {}, TOOLS_JSON),
        m("mistral:7b", "Mistral 7B", 32_768, 0, 0, {}, TOOLS_JSON),
        m("gemma3:4b", "Gemma 3 4B", 131_072, 0, 0, {}, ["json", "vision"]),
      ],
    },
    { id: "custom", name: "Custom (OpenAI-compatible)", models: [] },
  ],
};

/** Parsed at load: a typo in the data above fails at startup, not on a customer's request. */
export const BUILTIN_CATALOG: CatalogFile = catalogFileSchema.parse(BUILTIN);
