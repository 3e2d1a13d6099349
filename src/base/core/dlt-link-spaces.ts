// A host split by spaces around its dot (`evil. com`, `evil .com/x`, `www. evil. com`), as a
// {#var#} value can carry it past an operator's scrubber, is joined back (`evil.com`) before the
// links are read (dlt-links.ts). Prose has the same shape at every sentence end, so the join is
// narrow, and each condition keeps a kind of prose out:
//
// 1. the word after the dot is a top-level domain of the `tlds` package (IANA's list): `done. Come`;
// 2. it is not written as a sentence start: a capital, then lower case (`Thanks. In case`), or
//    capitals after a capital word and `. ` (`WITH US. SBI`, so `EVIL. COM` is not joined);
// 3. it is not an everyday word that is also a TLD (PROSE_WORDS: `paid. to check`,
//    `CREDITED. IN CASE`, `booked. shop now`), unless a path follows it (`evil. shop/x`), it
//    ends the text (`Visit evil. in`), or the label before the dot is a second-level one
//    (`evil.co. in`);
// 4. the label before the dot is not a one-letter piece of a dotted abbreviation (`a.m. to`,
//    `e.g. com`).
// Digits after the dot are never a TLD (`Rs. 500`).
import { createRequire } from "node:module";

/** One change a fold made to its input: [from, to) became `by`. */
export type Edit = [from: number, to: number, by: string];

const TLDS: ReadonlySet<string> = new Set(createRequire(import.meta.url)("tlds") as string[]);

/**
 * Everyday English and Hinglish words that are also TLDs, so that a sentence starting with one
 * in lower case (or in an all-capitals SMS) does not make the previous word a host.
 */
export const PROSE_WORDS: ReadonlySet<string> = new Set(
  [
    // Two letters: English, then Hinglish (`ki`, `se`, `ke`, `ne`, `ye`, `pe`, `jo`, `tk`, `kr`, `sb`, `na`).
    "am as at be by de do id in is it me my no so to us",
    "ki se ke ne ye pe jo tk kr sb na",
    // Everyday words among the generic TLDs.
    "able academy actor ads adult army art audio author auto autos baby band bank bar beauty beer best",
    "bet bible bid bike bingo bio black blog blue boats bond book booking bot box broker brother build",
    "buy buzz cab cafe call cam camera camp capital car cards care career careers cars case cash casino",
    "cat center ceo channel charity chat cheap church circle city claims click clinic cloud club coach",
    "codes coffee college company compare contact cooking cool country coupon coupons courses credit",
    "cricket crown cruise dad dance data date dating day deal dealer deals degree delta dental dentist",
    "design diet digital direct dish doctor dog domains dot drive earth eat eco email energy estate",
    "events expert express fail faith family fan fans farm farmers fashion fast film final finance fire",
    "fish fishing fit fitness flights florist flowers fly food forex forsale forum free fun fund game",
    "games gallery garden gift gifts gives giving glass global gold golf got gratis green grocery group",
    "guide guitars guru hair health help here hockey holiday homes horse host hosting hot hotels house",
    "how ice inc info ink insure jobs joy kids kitchen land law lawyer lease legal life like limited limo",
    "link live living loan loans locker lol lotto love luxury makeup man map market markets media med",
    "meet meme men menu mini mint mobile mom money monster movie museum music name navy net network new",
    "news next ninja now office one online open organic page parts party pay pet phone photo photos pics",
    "pin ping pink pizza place play plus poker post press prime prod prof promo pub quest racing radio",
    "read realty recipes red rehab rent rentals repair report rest review reviews rich rip rocks room run",
    "safe safety sale salon save school science search seat secure seek select seven sew shoes shop show",
    "silk singles site ski skin sky smart smile soccer social solar song space sport spot star storage",
    "store stream studio study style supply support surf surgery systems tab talk target tax taxi team",
    "tech tel tennis theater tickets tips tires today tools top total tours town toys trade trading",
    "travel trust tube tunes video villas vision vote voting voyage watch watches weather webcam website",
    "wed wedding wiki win wine winners work works world wow you zero zip zone",
  ]
    .join(" ")
    .split(" ")
    .filter((word) => TLDS.has(word)),
);

/** Labels under which a country's TLD is registered (`co.in`, `gov.in`, `ac.in`, `org.in`, …). */
const SECOND_LEVEL = new Set([
  "ac",
  "co",
  "com",
  "edu",
  "firm",
  "gen",
  "gov",
  "ind",
  "mil",
  "net",
  "nic",
  "org",
  "res",
]);

const isSpace = (c: number) => c === 32 || c === 9;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLabelChar = (c: number) => isLetter(c) || (c >= 48 && c <= 57) || c === 45;
const isUpper = (c: number) => c >= 65 && c <= 90;

/**
 * Whether the spaced dot between `text[labelEnd]` and `text[wordStart]` joins the label before it
 * and the word `text[wordStart, wordEnd)` after it into one host (the rules above).
 */
function joins(
  text: string,
  labelEnd: number,
  wordStart: number,
  wordEnd: number,
  spaceBefore: boolean,
  goesOn: boolean,
): boolean {
  // A sentence start, the common case, is ruled out before anything is read into a string.
  if (isUpper(text.charCodeAt(wordStart)) && !isUpper(text.charCodeAt(wordStart + 1))) return false;
  const word = text.slice(wordStart, wordEnd);
  const tld = word.toLowerCase();
  if (!TLDS.has(tld)) return false;
  let start = labelEnd;
  while (start > 0 && isLabelChar(text.charCodeAt(start - 1))) start--;
  const written = text.slice(start, labelEnd);
  // In capitals after a capital label with only a space after the dot: an all-capitals sentence.
  if (!spaceBefore && /^[A-Z]+$/.test(word) && /^[A-Z0-9-]*[A-Z][A-Z0-9-]*$/.test(written)) return false;
  const label = written.toLowerCase();
  if (label.length === 1 && text[start - 1] === ".") return false;
  if (!PROSE_WORDS.has(tld)) return true;
  const rest = text.slice(wordEnd);
  const endsText = !goesOn && /^[\s.!?,;:)]*$/.test(rest);
  return rest.startsWith("/") || endsText || (tld.length === 2 && SECOND_LEVEL.has(label));
}

/**
 * The text with each host split by spaces around a dot joined back; prose left as it is.
 * `goesOn`: the text is a part of a longer one that goes on with a letter, so no word of it ends the text.
 * `edits`: when given, each join is added to it (dlt-link-fold.ts, for the way back to the text as written).
 */
export function joinSpacedHosts(text: string, goesOn = false, edits?: Edit[]): string {
  let out = "";
  let copied = 0;
  for (let dot = text.indexOf("."); dot !== -1; dot = text.indexOf(".", dot + 1)) {
    if (!isSpace(text.charCodeAt(dot - 1)) && !isSpace(text.charCodeAt(dot + 1))) continue;
    // At most three spaces or tabs on each side, a label character before, letters after.
    let labelEnd = dot;
    while (labelEnd > 0 && dot - labelEnd < 3 && isSpace(text.charCodeAt(labelEnd - 1))) labelEnd--;
    let wordStart = dot + 1;
    while (wordStart - dot <= 3 && isSpace(text.charCodeAt(wordStart))) wordStart++;
    if (labelEnd === 0 || !isLabelChar(text.charCodeAt(labelEnd - 1)) || text.charCodeAt(labelEnd - 1) === 45) continue;
    let wordEnd = wordStart;
    while (isLetter(text.charCodeAt(wordEnd))) wordEnd++;
    const length = wordEnd - wordStart;
    if (length < 2 || length > 63 || isLabelChar(text.charCodeAt(wordEnd))) continue;
    if (!joins(text, labelEnd, wordStart, wordEnd, labelEnd < dot, goesOn)) continue;
    out += `${text.slice(copied, labelEnd)}.`;
    edits?.push([labelEnd, wordStart, "."]);
    copied = wordStart;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
