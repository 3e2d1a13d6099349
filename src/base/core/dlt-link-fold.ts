// The text as the DLT link extractor reads it (dlt-links.ts), and the way back to the text as
// written. Folding undoes what hides a link cheaply: NFKC (full-width letters and dots), other
// dot look-alikes, zero-width characters, `hxxp`, `[.]`, spaces inside `http://`, a space after
// `www.`, and a host split by spaces around its dot (dlt-link-spaces.ts). A refusal names the
// link as written (docs/api.md, `error.url`): `hxxp://evil[.]com`, `evil. com`, not the folded
// `http://evil.com`, which is not in the text. The way back (writtenSpans) is built only for a
// text that folding changed and that holds a link, by folding it again and recording each change.
import { type Edit, joinSpacedHosts } from "./dlt-link-spaces.js";

export type { Edit };

const ZERO_WIDTH = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;
const DOT_ALIKES = /[\u3002\uFF61\uFE52\u2024\u2027\u30FB\uFF0E]/g;

/** `text.replace(pattern, by)` (`$1` in `by`: the first group), each replacement recorded in `edits` when given. */
function replace(text: string, pattern: RegExp, by: string, edits: Edit[] | undefined): string {
  if (!edits) return text.replace(pattern, by);
  return text.replace(pattern, (match: string, ...rest: unknown[]) => {
    const out = by.replace("$1", typeof rest[0] === "string" ? rest[0] : "");
    const at = rest[rest.length - 2] as number;
    edits.push([at, at + match.length, out]);
    return out;
  });
}

/** A new list of changes in `steps`, or undefined when changes are not recorded. */
function step(steps: Edit[][] | undefined): Edit[] | undefined {
  if (!steps) return undefined;
  const edits: Edit[] = [];
  steps.push(edits);
  return edits;
}

/**
 * The text as the extractor reads it: look-alikes folded, defanged forms undone, spaced hosts
 * joined. `goesOn`: the text is a part of a longer one that goes on with a letter (dlt-link-parts.ts).
 * `steps`: when given, each fold's changes are added to it, in order (writtenSpans).
 */
export function foldForLinks(text: string, goesOn = false, steps?: Edit[][]): string {
  // NFKC and the look-alikes only where there is something outside ASCII (most SMS have nothing).
  const ascii = !/[^\t\n\r -~]/.test(text);
  let undone = text;
  if (!ascii) {
    undone = steps ? nfkcTracked(text, step(steps)!) : text.normalize("NFKC");
    undone = replace(replace(undone, ZERO_WIDTH, "", step(steps)), DOT_ALIKES, ".", step(steps));
  }
  // Each fold needs a `.` or a `:` (and none makes one that was not there): most OTPs skip most.
  const dot = undone.includes(".");
  if (dot) undone = replace(undone, /\[\.\]|\(\.\)|\{\.\}/g, ".", step(steps));
  if (undone.includes(":")) {
    undone = replace(undone, /\bhxxp(s?)(?=\s*:)/gi, "http$1", step(steps));
    undone = replace(undone, /\b(https?)\s*:\s*\/\s*\/\s*/gi, "$1://", step(steps));
    undone = replace(undone, /:\/\/\s+/g, "://", step(steps));
  }
  if (!dot) return undone;
  return joinSpacedHosts(replace(undone, /\bwww\.\s+/gi, "www.", step(steps)), goesOn, step(steps));
}

/**
 * text.normalize("NFKC"), with what each piece became in `edits`. Normalisation never joins
 * across a boundary before an ASCII character (a starter that nothing composes with), so the text
 * is normalised piece by piece: one code point at a time where that gives the same text, else the
 * run from one ASCII character to the next.
 */
function nfkcTracked(text: string, edits: Edit[]): string {
  const whole = text.normalize("NFKC");
  let out = "";
  for (const [from, piece] of piecesBeforeAscii(text)) {
    let one = "";
    const points: Edit[] = [];
    for (let i = 0; i < piece.length; ) {
      const point = String.fromCodePoint(piece.codePointAt(i)!);
      const folded = point.normalize("NFKC");
      if (folded !== point) points.push([from + i, from + i + point.length, folded]);
      one += folded;
      i += point.length;
    }
    const folded = piece.normalize("NFKC");
    if (one === folded) edits.push(...points);
    else edits.push([from, from + piece.length, folded]);
    out += folded;
  }
  if (out === whole) return whole;
  // Not expected; the whole text as one change keeps the way back right, if coarse.
  edits.length = 0;
  edits.push([0, text.length, whole]);
  return whole;
}

/** The text cut before each ASCII character: [where, piece]. */
function* piecesBeforeAscii(text: string): Generator<[number, string]> {
  let from = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || text.charCodeAt(i) < 0x80) {
      yield [from, text.slice(from, i)];
      from = i;
    }
  }
}

/**
 * For a text, where each span of its folded form was written: `(start, end)` of the folded text
 * gives the text as written that folded into it (a changed character counts as what it came from
 * whole: `[.]` for a `.`, `hxxp` for `http`, `. ` for the `.` of a joined host).
 */
export function writtenSpans(text: string, goesOn = false): (start: number, end: number) => string {
  const steps: Edit[][] = [];
  foldForLinks(text, goesOn, steps);
  // starts[i], ends[i]: where the i-th character of the current form came from in `text`.
  let starts = Array.from({ length: text.length }, (_, i) => i);
  let ends = starts.map((i) => i + 1);
  for (const edits of steps) {
    if (edits.length === 0) continue;
    const nextStarts: number[] = [];
    const nextEnds: number[] = [];
    let at = 0;
    for (const [from, to, by] of edits) {
      if (from < at) continue;
      for (; at < from; at++) {
        nextStarts.push(starts[at]!);
        nextEnds.push(ends[at]!);
      }
      const start = from < starts.length ? starts[from]! : text.length;
      const end = to > from ? ends[to - 1]! : start;
      for (let k = 0; k < by.length; k++) {
        nextStarts.push(start);
        nextEnds.push(end);
      }
      at = to;
    }
    for (; at < starts.length; at++) {
      nextStarts.push(starts[at]!);
      nextEnds.push(ends[at]!);
    }
    starts = nextStarts;
    ends = nextEnds;
  }
  return (start, end) => (end > start ? text.slice(starts[start], ends[end - 1]) : "");
}
