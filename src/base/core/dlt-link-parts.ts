// The DLT link and number check of a text that matched an approved template, read by parts
// (docs/decisions/0135-dlt-checks-per-send.md): the template's fixed text is the same in every
// message, so what it holds is found once per template and only the parts around the {#var#}
// values are read per message, and of those, a part seen lately (an OTP template's link and
// callback number, the same in every send while the code is not) comes from memory. The result
// is the whole text's, exactly (findUnlistedLink).
//
// The text is cut at white space inside the fixed text with a letter of the fixed text on each
// side (`Track it`). Nothing the extractor reads spans such a cut: a link is one word once the
// text is folded; the folds that remove white space need a `.`, `:` or `/` beside it (`evil. com`,
// `http :// x`, `www. x`); a number's digits are joined across one separator, never a letter. The
// one thing a part cannot see by itself, whether the text ends after a word (`Visit evil. in`), is
// passed on: a part before a cut never ends the text, as a letter follows it. ASCII texts only
// (NFKC and the look-alike folds change other texts' lengths and white space): others are read whole.
import { BoundedMap } from "./bounded-map.js";
import {
  type EntityLinks,
  type Findings,
  findingsIn,
  firstUnlisted,
  NOTHING_FOUND,
  type Unlisted,
} from "./dlt-links.js";

const ASCII = /^[\t\n\r -~]*$/;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** A part of the text around values, read per message; `goesOn`: a letter follows it. */
interface ReadPart {
  from: number;
  to: number;
  goesOn: boolean;
}

/** Enough for the values of the templates a gateway sends at once. */
const PART_MEMO_SIZE = 1024;
/** Longer parts are read every time: the memory stays under a megabyte a map. */
const PART_MEMO_LENGTH = 320;

/** Parts read lately (by `goesOn`), and what each holds: a value's link and number repeat. */
const partsRead = [
  new BoundedMap<string, Findings>(PART_MEMO_SIZE),
  new BoundedMap<string, Findings>(PART_MEMO_SIZE),
] as const;

/**
 * What a part around values holds, read once while it stays among the last PART_MEMO_SIZE read:
 * an OTP template's link and callback number are the same in every send while its code is not,
 * so the part holding the code is read per message and the others come from memory. Only parts
 * that hold a link or a number are kept: those cost the most to read, and a part that differs in
 * every send (the code's) would only churn the memory.
 */
function readPart(part: string, goesOn: boolean): Findings {
  if (part.length > PART_MEMO_LENGTH) return findingsIn(part, goesOn);
  const memo = partsRead[goesOn ? 1 : 0];
  let found = memo.get(part);
  if (!found) {
    found = findingsIn(part, goesOn);
    if (found === NOTHING_FOUND) return found;
    memo.set(part, found);
  }
  return found;
}

/** A template's fixed text, cut for reading by parts; what its fixed parts hold is found once. */
export class TemplateLinkPlan {
  /** Per fixed piece, its cuts: [start, end) of each white-space run between two letters. */
  private readonly cuts: [number, number][][];
  /** What each part wholly inside the fixed text holds, by `piece:cut` (found at first use). */
  private readonly fixed = new Map<string, Findings>();

  constructor(private readonly pieces: readonly string[]) {
    this.cuts = pieces.map(cutsOf);
  }

  /**
   * The first link, then number, of `text` that is not on the entity's lists, as
   * findUnlistedLink would answer for the whole text. `pieceStarts`: where each fixed piece
   * starts in `text` (as the template matcher found them).
   */
  firstUnlisted(text: string, pieceStarts: readonly number[], links: EntityLinks | undefined): Unlisted | undefined {
    return firstUnlisted(this.findings(text, pieceStarts), links);
  }

  /** What each part of `text` holds, in order: fixed parts from memory, the others read. */
  findings(text: string, pieceStarts: readonly number[]): Findings[] {
    if (!ASCII.test(text)) return [findingsIn(text)];
    const parts: (Findings | ReadPart)[] = [];
    let from = 0;
    let holdsValue = false;
    for (let i = 0; i < this.pieces.length; i++) {
      const at = pieceStarts[i]!;
      if (i > 0) holdsValue = true;
      const cuts = this.cuts[i]!;
      for (let k = 0; k < cuts.length; k++) {
        const [start, end] = cuts[k]!;
        if (holdsValue) parts.push({ from, to: at + start, goesOn: true });
        else parts.push(this.fixedPart(i, k, true));
        from = at + end;
        holdsValue = false;
      }
    }
    const last = this.pieces.length - 1;
    if (holdsValue) parts.push({ from, to: text.length, goesOn: false });
    else parts.push(this.fixedPart(last, this.cuts[last]!.length, false));
    return parts.map((part) => ("from" in part ? readPart(text.slice(part.from, part.to), part.goesOn) : part));
  }

  /** The fixed part of piece `i` that ends at its cut `k` (its end when k is past the last cut). */
  private fixedPart(i: number, k: number, goesOn: boolean): Findings {
    const key = `${i}:${k}`;
    let found = this.fixed.get(key);
    if (!found) {
      const cuts = this.cuts[i]!;
      const start = k === 0 ? 0 : cuts[k - 1]![1];
      const end = k < cuts.length ? cuts[k]![0] : this.pieces[i]!.length;
      found = findingsIn(this.pieces[i]!.slice(start, end), goesOn);
      this.fixed.set(key, found);
    }
    return found;
  }
}

/** The white-space runs of `piece` with a letter of the piece on each side. */
function cutsOf(piece: string): [number, number][] {
  const cuts: [number, number][] = [];
  if (!ASCII.test(piece)) return cuts;
  for (let i = 1; i < piece.length; i++) {
    if (!isAsciiSpace(piece.charCodeAt(i)) || !isLetter(piece.charCodeAt(i - 1))) continue;
    let end = i;
    while (end < piece.length && isAsciiSpace(piece.charCodeAt(end))) end++;
    if (end < piece.length && isLetter(piece.charCodeAt(end))) cuts.push([i, end]);
    i = end;
  }
  return cuts;
}
