// Where a message stopped matching a DLT template (issue 40, item 3): the refusal's
// `error.position` and `error.expected`. The closest attempt is the one that matched the most
// of the template's literal text; among equals, the one that stopped first in the message.
// A literal piece after a {#var#} that matches nowhere in the placeholder's 30 characters is
// reported at the placeholder, with the placeholder in `expected`.

import type { TemplateLinkPlan } from "../../base/core/dlt-link-parts.js";

/** A template as the matcher holds it (dlt-matcher.ts compiles it). */
export interface Compiled<T> {
  value: T;
  /** The template as the matcher compares it (normalised when lenient). */
  content: string;
  /** Literal pieces around the placeholders; pieces.length = vars + 1. */
  pieces: string[];
  /** Where each piece starts in `content`. */
  starts: number[];
  /** Longest literal piece: a cheap `includes` check before the full match. */
  longest: string;
  /** The fixed text cut for the DLT link check (dlt-link-parts.ts), made at the first match. */
  linkPlan?: TemplateLinkPlan;
}

export interface Mismatch<T> {
  /** The template it was compared with. */
  value: T;
  /** Where the message stopped matching (0-based, UTF-16 code units of the message as sent). */
  position: number;
  /** Literal characters of the template matched before it stopped. */
  matched: number;
  /** The template's text from there (empty: the template ends where the message goes on). */
  expected: string;
}

/** How many characters of `expected` a refusal quotes. */
export const EXPECTED_QUOTED = 40;

const PLACEHOLDER_LENGTH = "{#var#}".length;

/** How far `text` gets into the template, whose pieces it matches with bounded placeholders between them. */
export function furthestMatch<T>(text: string, template: Compiled<T>, varMax: number): Mismatch<T> {
  const { pieces, starts, content } = template;
  const last = pieces.length - 1;
  const before: number[] = [];
  for (let i = 0, sum = 0; i <= last; sum += pieces[i]!.length, i++) before.push(sum);
  let best = { position: 0, matched: -1, at: 0 };
  const consider = (position: number, matched: number, at: number) => {
    if (matched > best.matched || (matched === best.matched && position < best.position))
      best = { position, matched, at };
  };
  const seen = new Set<number>();
  const tryPiece = (index: number, start: number): void => {
    const key = start * pieces.length + index;
    if (seen.has(key)) return;
    seen.add(key);
    const piece = pieces[index]!;
    let length = 0;
    while (length < piece.length && text[start + length] === piece[length]) length++;
    if (length < piece.length) {
      consider(start + length, before[index]! + length, starts[index]! + length);
      return;
    }
    const end = start + length;
    if (index === last) {
      if (end !== text.length) consider(end, before[index]! + length, content.length);
      return;
    }
    // The next piece may start anywhere within the placeholder's reach.
    const next = pieces[index + 1]!;
    const limit = Math.min(text.length, end + varMax);
    if (index + 1 === last && next === "") {
      // A closing placeholder: the message goes on past its 30 characters.
      if (text.length - end > varMax) consider(limit, before[last]!, content.length);
      return;
    }
    consider(end, before[index + 1]!, starts[index + 1]! - PLACEHOLDER_LENGTH);
    for (let from = end; from <= limit; from++) {
      if (next === "" || text[from] === next[0]) tryPiece(index + 1, from);
    }
  };
  tryPiece(0, 0);
  return {
    value: template.value,
    position: best.position,
    matched: best.matched,
    expected: content.slice(best.at, best.at + EXPECTED_QUOTED),
  };
}
