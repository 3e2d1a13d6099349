// DLT content scrubbing: does a message match one of the account's approved templates?
// A template is literal text with {#var#} placeholders; each placeholder matches up to 30
// characters of any text, the rest must match literally: whitespace exactly as registered
// (strict, as operators compare it), or with runs of whitespace in either counted as one space
// (lenient, the accounts of before issue 40's item 3). Thousands of templates per account are
// indexed by their leading literal text in a character trie, so a message is tried only against
// templates whose leading text it starts with (plus any template that starts with a placeholder).
// When none matches, `explain` says where the closest one stopped matching (dlt-mismatch.ts).

import { TemplateLinkPlan } from "../../base/core/dlt-link-parts.js";
import type { DltMatching } from "../../domain/accounts/index.js";
import { type Compiled, EXPECTED_QUOTED, furthestMatch, type Mismatch } from "./dlt-mismatch.js";

export const VAR_MAX = 30;
const VAR = /\{#var#\}/gi;

export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The text as the matcher compares it, and where each of its characters was in the original. */
function prepared(text: string, mode: DltMatching): { text: string; origin: (index: number) => number } {
  if (mode === "strict") return { text, origin: (index) => index };
  const kept: number[] = [];
  let out = "";
  let space = false;
  for (let i = 0; i < text.length; i++) {
    if (/\s/.test(text[i]!)) {
      space = out.length > 0;
      continue;
    }
    if (space) {
      out += " ";
      kept.push(i - 1);
      space = false;
    }
    out += text[i];
    kept.push(i);
  }
  const end = kept.length > 0 ? kept[kept.length - 1]! + 1 : 0;
  return { text: out, origin: (index) => kept[index] ?? end };
}

export interface TemplateEntry<T> {
  content: string;
  value: T;
}

interface TrieNode<T> {
  children: Map<string, TrieNode<T>>;
  /** Templates whose leading literal text ends here. */
  templates: Compiled<T>[];
}

/** The text as matched: the hot path's quicker form of `prepared(…).text`. */
function comparable(text: string, mode: DltMatching): string {
  return mode === "strict" ? text : normalizeWhitespace(text);
}

function compile<T>(raw: string, value: T, mode: DltMatching): Compiled<T> {
  const content = comparable(raw, mode);
  const pieces: string[] = [];
  const starts: number[] = [];
  let from = 0;
  for (const placeholder of content.matchAll(VAR)) {
    pieces.push(content.slice(from, placeholder.index));
    starts.push(from);
    from = placeholder.index + placeholder[0].length;
  }
  pieces.push(content.slice(from));
  starts.push(from);
  const longest = pieces.reduce((a, b) => (b.length > a.length ? b : a), "");
  return { value, content, pieces, starts, longest };
}

/**
 * Matches `text` against literal pieces with bounded placeholders between them; on a match,
 * `starts` holds where each piece starts in `text`.
 */
function matchPieces(text: string, pieces: string[], starts: number[]): boolean {
  const first = pieces[0] ?? "";
  if (!text.startsWith(first)) return false;
  starts[0] = 0;
  if (pieces.length === 1) return text.length === first.length;
  return matchFrom(text, first.length, pieces, 1, new Set(), starts);
}

/**
 * Can pieces[index…] match text[position…], with a placeholder of at most VAR_MAX characters
 * before each piece? `failed` remembers (position, index) pairs already ruled out, so the
 * search is bounded by text length × pieces × VAR_MAX however ambiguous the template.
 */
function matchFrom(
  text: string,
  position: number,
  pieces: string[],
  index: number,
  failed: Set<number>,
  starts: number[],
): boolean {
  const piece = pieces[index] ?? "";
  const limit = Math.min(text.length, position + VAR_MAX);
  if (index === pieces.length - 1) {
    const start = text.length - piece.length;
    starts[index] = start;
    return start >= position && start <= limit && text.endsWith(piece);
  }
  const key = position * pieces.length + index;
  if (failed.has(key)) return false;
  // Bounded by `limit` explicitly: indexOf("", i) clamps i to the length and would never end.
  for (let from = position; from <= limit; ) {
    const at = text.indexOf(piece, from);
    if (at === -1 || at > limit) break;
    starts[index] = at;
    if (matchFrom(text, at + piece.length, pieces, index + 1, failed, starts)) return true;
    from = at + 1;
  }
  failed.add(key);
  return false;
}

/** A message matched to a template: where its fixed pieces are, and the template's link plan. */
export interface TemplateMatch<T> {
  value: T;
  /**
   * Set when the message is compared as sent (strict, or lenient with nothing to collapse):
   * the template's fixed text cut for the link check, and where each fixed piece starts.
   */
  layout?: { plan: TemplateLinkPlan; pieceStarts: number[] };
}

export class TemplateIndex<T> {
  private readonly root: TrieNode<T> = { children: new Map(), templates: [] };
  private readonly all: Compiled<T>[] = [];

  constructor(
    entries: Iterable<TemplateEntry<T>> = [],
    readonly mode: DltMatching = "lenient",
  ) {
    for (const entry of entries) this.add(entry.content, entry.value);
  }

  get size(): number {
    return this.all.length;
  }

  add(content: string, value: T): void {
    const compiled = compile(content, value, this.mode);
    let node = this.root;
    for (const char of compiled.pieces[0] ?? "") {
      let next = node.children.get(char);
      if (!next) {
        next = { children: new Map(), templates: [] };
        node.children.set(char, next);
      }
      node = next;
    }
    node.templates.push(compiled);
    this.all.push(compiled);
  }

  /** The first template the message matches, preferring the longest leading literal text. */
  /** Whether any template's value passes `test` (a dlt_template_id the send named is the account's). */
  some(test: (value: T) => boolean): boolean {
    return this.all.some((template) => test(template.value));
  }

  match(message: string): T | undefined {
    return this.matchWithLayout(message)?.value;
  }

  /**
   * As match, with where the template's fixed pieces are in the message (TemplateMatch). With
   * `preferred`, the first matching template it accepts, else the first matching one (the same
   * text registered for several headers or entities: the send's own).
   */
  matchWithLayout(message: string, preferred?: (value: T) => boolean): TemplateMatch<T> | undefined {
    const text = comparable(message, this.mode);
    const { candidates } = this.walk(text);
    const starts: number[] = [];
    let first: { template: Compiled<T>; starts: number[] } | undefined;
    for (let i = candidates.length - 1; i >= 0; i--) {
      for (const template of candidates[i] ?? []) {
        if (template.longest && !text.includes(template.longest)) continue;
        starts.length = template.pieces.length;
        if (!matchPieces(text, template.pieces, starts)) continue;
        if (!preferred || preferred(template.value)) return this.found(template, starts, text !== message);
        first ??= { template, starts: [...starts] };
      }
    }
    return first && this.found(first.template, first.starts, text !== message);
  }

  private found(template: Compiled<T>, starts: number[], collapsed: boolean): TemplateMatch<T> {
    if (collapsed) return { value: template.value };
    template.linkPlan ??= new TemplateLinkPlan(template.pieces);
    return { value: template.value, layout: { plan: template.linkPlan, pieceStarts: starts } };
  }

  /**
   * Where the closest template stopped matching a message none matches: the one `preferred`
   * picks when there is one (the template the send named), else the best of those the trie
   * leads to. Undefined when the account has no template. Only refusals call it.
   */
  explain(message: string, preferred?: (value: T) => boolean): Mismatch<T> | undefined {
    const { text, origin } = prepared(message, this.mode);
    const named = preferred ? this.all.find((template) => preferred(template.value)) : undefined;
    let tried: Compiled<T>[];
    let best: Mismatch<T> | undefined;
    if (named) tried = [named];
    else {
      const { candidates, deepest, depth } = this.walk(text);
      tried = candidates.flat();
      // Templates further down the trie all stop where the walk did, at `depth`.
      const below = firstBelow(deepest);
      if (below) {
        const expected = below.content.slice(depth, depth + EXPECTED_QUOTED);
        best = { value: below.value, position: depth, matched: depth, expected };
      }
    }
    for (const template of tried) {
      const found = furthestMatch(text, template, VAR_MAX);
      if (!best || found.matched > best.matched || (found.matched === best.matched && found.position < best.position))
        best = found;
    }
    return best && { ...best, position: origin(best.position) };
  }

  /** The trie nodes `text` walks through: templates whose leading text it starts with, and where it stops. */
  private walk(text: string): { candidates: Compiled<T>[][]; deepest: TrieNode<T>; depth: number } {
    const candidates: Compiled<T>[][] = [this.root.templates];
    let deepest = this.root;
    let depth = 0;
    for (const char of text) {
      const next = deepest.children.get(char);
      if (!next) break;
      deepest = next;
      depth += char.length;
      if (next.templates.length > 0) candidates.push(next.templates);
    }
    return { candidates, deepest, depth };
  }
}

/** A template whose leading text goes on below `node` (the nearest one). */
function firstBelow<T>(node: TrieNode<T>): Compiled<T> | undefined {
  let level = [...node.children.values()];
  while (level.length > 0) {
    for (const child of level) if (child.templates[0]) return child.templates[0];
    level = level.flatMap((child) => [...child.children.values()]);
  }
  return undefined;
}

/** The straightforward definition, for tests: the template as an anchored regular expression. */
export function templateRegExp(content: string, mode: DltMatching = "lenient"): RegExp {
  const pieces = comparable(content, mode).split(VAR);
  const escaped = pieces.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(`[\\s\\S]{0,${VAR_MAX}}`)}$`);
}
