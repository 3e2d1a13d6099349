// DLT content scrubbing: does a message match one of the account's approved templates?
// A template is literal text with {#var#} placeholders; each placeholder matches up to 30
// characters of any text, the rest must match literally, and runs of whitespace in either
// count as one space. Thousands of templates per account are indexed by their leading
// literal text in a character trie, so a message is tried only against templates whose
// leading text it starts with (plus any template that starts with a placeholder).

export const VAR_MAX = 30;
const VAR = /\{#var#\}/gi;

export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export interface TemplateEntry<T> {
  content: string;
  value: T;
}

interface Compiled<T> {
  value: T;
  /** Literal pieces around the placeholders (normalised); pieces.length = vars + 1. */
  pieces: string[];
  /** Longest literal piece: a cheap `includes` check before the full match. */
  longest: string;
}

interface TrieNode<T> {
  children: Map<string, TrieNode<T>>;
  /** Templates whose leading literal text ends here. */
  templates: Compiled<T>[];
}

function compile<T>(content: string, value: T): Compiled<T> {
  const pieces = normalizeWhitespace(content).split(VAR);
  const longest = pieces.reduce((a, b) => (b.length > a.length ? b : a), "");
  return { value, pieces, longest };
}

/** Matches `text` (normalised) against literal pieces with bounded placeholders between them. */
function matchPieces(text: string, pieces: string[]): boolean {
  const first = pieces[0] ?? "";
  if (!text.startsWith(first)) return false;
  if (pieces.length === 1) return text.length === first.length;
  return matchFrom(text, first.length, pieces, 1, new Set());
}

/**
 * Can pieces[index…] match text[position…], with a placeholder of at most VAR_MAX characters
 * before each piece? `failed` remembers (position, index) pairs already ruled out, so the
 * search is bounded by text length × pieces × VAR_MAX however ambiguous the template.
 */
function matchFrom(text: string, position: number, pieces: string[], index: number, failed: Set<number>): boolean {
  const piece = pieces[index] ?? "";
  const limit = Math.min(text.length, position + VAR_MAX);
  if (index === pieces.length - 1) {
    const start = text.length - piece.length;
    return start >= position && start <= limit && text.endsWith(piece);
  }
  const key = position * pieces.length + index;
  if (failed.has(key)) return false;
  // Bounded by `limit` explicitly: indexOf("", i) clamps i to the length and would never end.
  for (let from = position; from <= limit; ) {
    const at = text.indexOf(piece, from);
    if (at === -1 || at > limit) break;
    if (matchFrom(text, at + piece.length, pieces, index + 1, failed)) return true;
    from = at + 1;
  }
  failed.add(key);
  return false;
}

export class TemplateIndex<T> {
  private readonly root: TrieNode<T> = { children: new Map(), templates: [] };
  private count = 0;

  constructor(entries: Iterable<TemplateEntry<T>> = []) {
    for (const entry of entries) this.add(entry.content, entry.value);
  }

  get size(): number {
    return this.count;
  }

  add(content: string, value: T): void {
    const compiled = compile(content, value);
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
    this.count++;
  }

  /** The first template the message matches, preferring the longest leading literal text. */
  match(message: string): T | undefined {
    const text = normalizeWhitespace(message);
    const candidates: Compiled<T>[][] = [this.root.templates];
    let node: TrieNode<T> | undefined = this.root;
    for (const char of text) {
      node = node.children.get(char);
      if (!node) break;
      if (node.templates.length > 0) candidates.push(node.templates);
    }
    for (let i = candidates.length - 1; i >= 0; i--) {
      for (const template of candidates[i] ?? []) {
        if (template.longest && !text.includes(template.longest)) continue;
        if (matchPieces(text, template.pieces)) return template.value;
      }
    }
    return undefined;
  }
}

/** The straightforward definition, for tests: the template as an anchored regular expression. */
export function templateRegExp(content: string): RegExp {
  const pieces = normalizeWhitespace(content).split(VAR);
  const escaped = pieces.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(`[\\s\\S]{0,${VAR_MAX}}`)}$`);
}
