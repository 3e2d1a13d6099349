// The text of a jsonb parameter (PostgreSQL's statements that read many rows' values from one
// object: submit-transitions.ts, report-transitions.ts, smpp/receipt-matching.ts).

// A run of backslashes, then the escape of one UTF-16 surrogate (d800–dfff).
const SURROGATE_ESCAPE = /(\\+)u(d[89a-f][0-9a-f]{2})/g;

/**
 * `JSON.stringify(value)` as PostgreSQL's jsonb accepts it. A lone surrogate (a carrier's id or
 * text ending in half an emoji, `"\ud800"` in a JSON report) is written by JSON.stringify as its
 * `\uXXXX` escape, which jsonb refuses ("Unicode low surrogate must follow a high surrogate"),
 * failing the whole batch with a 500. It becomes U+FFFD, as Node's UTF-8 encoder writes it in a
 * text parameter, so a jsonb key still meets the same id stored in a text column. JSON.stringify
 * escapes only lone surrogates (a pair is written as itself), and an escape is one only after an
 * even run of backslashes (`\\ud800` is a backslash, then the letters).
 */
export function jsonbText(value: unknown): string {
  const text = JSON.stringify(value);
  if (!text.includes("\\ud")) return text;
  return text.replace(SURROGATE_ESCAPE, (found, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(1)}\\ufffd` : found,
  );
}
