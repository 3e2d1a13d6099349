// The XML API's bounds, checked by one cheap pass before a document is parsed. The route parses
// the document before it authenticates (the credentials may be inside it, and a malformed
// document answers -9 whoever sends it), so whatever the parse costs, anyone can make the event
// loop pay: 2 MiB of empty elements held it for 0.9–1.3 s, one element of 190,000 attributes for
// 2.5 s, 300,000 nested elements for 0.3–0.7 s (security audit, section 2). A pushsms document
// nests three deep (pushsms, messages, message) and holds a message element per message; a
// broadcast's status lists up to 10,000 messages (docs/api.md), so a document, one broadcast,
// holds at most that many. This pass counts elements, attributes and depth with indexOf and
// charCodeAt only, and stops at the first bound passed: at most a few milliseconds for 2 MiB.
// It reads a well-formed document exactly; on a malformed one its counts are only an estimate,
// and the parse that follows refuses it.

/** Messages in one document: a broadcast's status lists up to 10,000 messages. */
export const MAX_XML_MESSAGES = 10_000;
/** Elements besides the messages: the root, the credentials, sender ID, route, <messages>, a few unknown. */
const OTHER_ELEMENTS = 100;
export const MAX_XML_ELEMENTS = MAX_XML_MESSAGES + OTHER_ELEMENTS;
/** A document nests three deep; a client's wrapper or extension element gets some room. */
export const MAX_XML_DEPTH = 16;
/** A message has two (pno, msg). */
export const MAX_XML_ATTRIBUTES_PER_ELEMENT = 16;
/** Four a message on average, and some for the other elements. */
export const MAX_XML_ATTRIBUTES = 4 * MAX_XML_MESSAGES + OTHER_ELEMENTS;

const LT = "<";
const BANG = 0x21;
const QUESTION = 0x3f;
const SLASH = 0x2f;
const GT = 0x3e;
const EQUALS = 0x3d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/** Why the document passes a bound (a sentence for `Malformed XML received: …`), or undefined. */
export function xmlOverBounds(xml: string): string | undefined {
  let elements = 0;
  let attributes = 0;
  let depth = 0;
  let at = xml.indexOf(LT);
  while (at !== -1) {
    const next = xml.charCodeAt(at + 1);
    if (next === BANG || next === QUESTION) {
      // A comment, CDATA section or processing instruction: nothing in it is markup.
      const closing = xml.startsWith("<!--", at) ? "-->" : xml.startsWith("<![CDATA[", at) ? "]]>" : ">";
      const end = xml.indexOf(closing, at + 2);
      if (end === -1) return "a comment, CDATA section or declaration is not closed";
      at = xml.indexOf(LT, end + closing.length);
      continue;
    }
    if (next === SLASH) {
      depth--;
      at = xml.indexOf(LT, at + 2);
      continue;
    }
    if (++elements > MAX_XML_ELEMENTS) {
      return `the document has more than ${MAX_XML_ELEMENTS} elements (at most ${MAX_XML_MESSAGES} messages)`;
    }
    // The start tag, to its `>`: a quoted value may hold `>`; each `=` outside one is an attribute.
    let own = 0;
    let end = at + 1;
    for (; end < xml.length; end++) {
      const c = xml.charCodeAt(end);
      if (c === GT) break;
      if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
        end = xml.indexOf(c === DOUBLE_QUOTE ? '"' : "'", end + 1);
        if (end === -1) return "an attribute value is not closed";
      } else if (c === EQUALS && ++own > MAX_XML_ATTRIBUTES_PER_ELEMENT) {
        return `an element has more than ${MAX_XML_ATTRIBUTES_PER_ELEMENT} attributes`;
      }
    }
    if (end >= xml.length) return "a tag is not closed";
    attributes += own;
    if (attributes > MAX_XML_ATTRIBUTES) return `the document has more than ${MAX_XML_ATTRIBUTES} attributes`;
    if (xml.charCodeAt(end - 1) !== SLASH && ++depth > MAX_XML_DEPTH) {
      return `elements nest more than ${MAX_XML_DEPTH} deep`;
    }
    at = xml.indexOf(LT, end + 1);
  }
  return undefined;
}

/** A line break (CR LF, CR or LF: XML reads each as LF) or a tab, as a character reference. */
const WHITESPACE = /\r\n?|[\t\n]/g;
const referenceOf = (whitespace: string) => (whitespace === "\t" ? "&#9;" : "&#10;");

/**
 * The document with each tab, line feed and carriage return inside an attribute value written as
 * a character reference. An XML parser reads such a character as a space (XML 1.0, 3.3.3); the
 * gateway has always kept them (a `msg` written over two lines is sent over two lines), and keeps
 * them so. Called on a document within the bounds; the same walk as xmlOverBounds.
 */
export function keepAttributeWhitespace(xml: string): string {
  if (!/[\t\n\r]/.test(xml)) return xml;
  const parts: string[] = [];
  let copied = 0;
  let at = xml.indexOf(LT);
  while (at !== -1) {
    const next = xml.charCodeAt(at + 1);
    if (next === BANG || next === QUESTION || next === SLASH) {
      const closing = xml.startsWith("<!--", at) ? "-->" : xml.startsWith("<![CDATA[", at) ? "]]>" : ">";
      const end = xml.indexOf(closing, at + 2);
      if (end === -1) break;
      at = xml.indexOf(LT, end + closing.length);
      continue;
    }
    let end = at + 1;
    for (; end < xml.length; end++) {
      const c = xml.charCodeAt(end);
      if (c === GT) break;
      if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
        const close = xml.indexOf(c === DOUBLE_QUOTE ? '"' : "'", end + 1);
        if (close === -1) return xml;
        const value = xml.slice(end + 1, close);
        if (/[\t\n\r]/.test(value)) {
          parts.push(xml.slice(copied, end + 1), value.replace(WHITESPACE, referenceOf));
          copied = close;
        }
        end = close;
      }
    }
    at = xml.indexOf(LT, end + 1);
  }
  if (copied === 0) return xml;
  parts.push(xml.slice(copied));
  return parts.join("");
}
