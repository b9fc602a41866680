/**
 * Reads the routing model's answer. Models asked for `{"ranking": [...]}` do not always comply
 * to the letter: the parser also takes a bare JSON array, JSON inside ``` fences, JSON surrounded
 * by prose, and ids that differ from the candidates' only in case. It keeps only candidate ids,
 * once each, in the model's order; an answer with no readable ranking, or one naming no candidate,
 * is an error (the caller then tries the next routing model).
 */

/** Cut from error messages: the answer comes from an upstream, keep it short. */
const MAX_QUOTE = 120;

export function parseRanking(text: string, candidateIds: readonly string[]): string[] {
  const ranking = extractRanking(text);
  if (ranking === null) throw new Error(`the routing model's answer has no JSON ranking: ${quote(text)}`);
  if (ranking.length === 0) throw new Error("the routing model's ranking is empty");

  const exact = new Set(candidateIds);
  const byLowerCase = new Map<string, string | null>();
  for (const id of candidateIds) {
    const key = id.toLowerCase();
    // Two candidates equal but for case: the case-insensitive match is ambiguous, not used.
    byLowerCase.set(key, byLowerCase.has(key) ? null : id);
  }
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const raw of ranking) {
    const name = raw.trim();
    const id = exact.has(name) ? name : byLowerCase.get(name.toLowerCase());
    if (!id || seen.has(id)) continue;
    seen.add(id);
    kept.push(id);
  }
  if (kept.length === 0)
    throw new Error(`the routing model's ranking names none of the candidates: ${quote(ranking.join(", "))}`);
  return kept;
}

/**
 * The ranked names of the best readable ranking in the text, or null when there is none: an object
 * with `ranking` anywhere wins over other shapes (a bare array in the prose may be something else).
 */
function extractRanking(text: string): string[] | null {
  const values: unknown[] = [];
  for (const candidate of jsonCandidates(text)) {
    try {
      values.push(JSON.parse(candidate));
    } catch {
      // Not JSON: the next candidate.
    }
  }
  for (const value of values) {
    if (typeof value === "object" && value !== null && !Array.isArray(value) && "ranking" in value) {
      const ranking = rankingOf(value);
      if (ranking) return ranking;
    }
  }
  for (const value of values) {
    const ranking = rankingOf(value);
    if (ranking) return ranking;
  }
  return null;
}

/**
 * Texts that may be the JSON answer, most likely first: the whole answer, the contents of each
 * code fence, then every balanced `{...}` / `[...]` span in order of appearance.
 */
function* jsonCandidates(text: string): Generator<string> {
  const trimmed = text.trim();
  if (trimmed) yield trimmed;
  for (const match of trimmed.matchAll(/```[a-zA-Z0-9_-]*[^\S\n]*\n?([\s\S]*?)```/g)) {
    const inner = match[1]?.trim();
    if (inner) yield inner;
  }
  for (let start = 0; start < trimmed.length; start++) {
    const char = trimmed[start];
    if (char !== "{" && char !== "[") continue;
    const end = balancedEnd(trimmed, start);
    if (end > start) yield trimmed.slice(start, end + 1);
  }
}

/** Index of the bracket closing the one at `start` (strings and escapes respected), or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") stack.push("}");
    else if (char === "[") stack.push("]");
    else if (char === "}" || char === "]") {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/**
 * `{"ranking": [...]}`, a bare array, or an object whose only array of names is the ranking under
 * another key (`{"models": [...]}`). Entries may be ids or objects with an `id` / `model` / `modelId`.
 */
function rankingOf(value: unknown): string[] | null {
  if (Array.isArray(value)) return namesOf(value);
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  if ("ranking" in record) return Array.isArray(record.ranking) ? namesOf(record.ranking) : null;
  const arrays = Object.values(record).filter(Array.isArray);
  const names = arrays.map(namesOf).filter((list): list is string[] => list !== null && list.length > 0);
  return names.length === 1 ? names[0]! : null;
}

/** The names of an array's entries; null when an entry is neither a name nor a named object. */
function namesOf(entries: unknown[]): string[] | null {
  const names: string[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") {
      names.push(entry);
      continue;
    }
    if (typeof entry === "object" && entry !== null) {
      const record = entry as Record<string, unknown>;
      const name = [record.id, record.model, record.modelId].find((field) => typeof field === "string");
      if (typeof name === "string") {
        names.push(name);
        continue;
      }
    }
    return null;
  }
  return names;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (!flat) return '""';
  return JSON.stringify(flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}...` : flat);
}
