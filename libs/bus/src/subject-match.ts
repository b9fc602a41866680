/**
 * NATS subject matching: tokens are separated by `.`, `*` matches exactly one token and `>` (only
 * as the last token) matches one or more remaining tokens.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const patternTokens = pattern.split(".");
  const subjectTokens = subject.split(".");
  for (let i = 0; i < patternTokens.length; i++) {
    const token = patternTokens[i];
    if (token === ">") {
      // `>` needs at least one token left to match.
      return i === patternTokens.length - 1 && subjectTokens.length > i;
    }
    const subjectToken = subjectTokens[i];
    if (subjectToken === undefined) return false;
    if (token !== "*" && token !== subjectToken) return false;
  }
  return patternTokens.length === subjectTokens.length;
}

/** True when any of the patterns matches the subject. */
export function anySubjectMatches(patterns: readonly string[], subject: string): boolean {
  return patterns.some((pattern) => subjectMatches(pattern, subject));
}
