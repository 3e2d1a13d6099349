// The XML API's `xmlstring` document:
//   <pushsms><username/><password/><senderid/><route/>?
//     <messages><message pno="9876543210" msg="text"/>…</messages></pushsms>
// Only a well-formed XML 1.0 document is read, in one pass of saxes, a strict parser, with tag
// and attribute values kept as text (numbers keep leading zeros and "+"), never with a DOCTYPE
// (no entity expansion), only up to MAX_XML_BYTES and within the bounds of xml-scan.ts, checked
// first. Character references (`&#10;`, `&#x20AC;`) are decoded as XML defines them; anything
// the parser cannot read is malformed (-9), never an internal error. The credentials may instead
// come beside the document, in the query or form (xmlCredentials).
import { setImmediate as nextTurn } from "node:timers/promises";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { GatewayError } from "../../base/core/errors.js";
import { keepAttributeWhitespace, MAX_XML_MESSAGES, xmlOverBounds } from "./xml-scan.js";

export const MAX_XML_BYTES = 2 * 1024 * 1024;
/**
 * Characters the parser reads in one turn of the event loop: at its slowest (`&amp;` after
 * `&amp;`, about 0.4 µs a character) some 7 ms of work, then other requests are served.
 */
const CHUNK_CHARS = 16 * 1024;

/**
 * The spec gives a <message> only `pno` and `msg`, no Unicode marker: the XML API sends GSM-7
 * text only, and a refused text is told where Unicode goes instead.
 */
export const XML_UNICODE_REMEDY =
  "the XML API sends GSM-7 text only (a <message> has no Unicode marker): send this text through /httpapi/send with the text parameter (or type=2), or /api/v2/sms/send with unicode: true";

export interface XmlSend {
  username?: string;
  password?: string;
  apiKey?: string;
  senderId?: string;
  route?: string;
  messages: { recipient: string; message: string }[];
}

function malformed(why: string): GatewayError {
  return new GatewayError("malformed_xml", `Malformed XML received: ${why}.`);
}

/** Names a JavaScript object must not take. */
const RESERVED_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** An element of the document as far as a send reads it: attributes, text, whether it holds elements. */
interface Element {
  name: string;
  attributes: Record<string, string>;
  hasAttributes: boolean;
  hasElements: boolean;
  text: string;
}

/**
 * Its text; as the document tree read it before: an element with attributes or elements but no
 * text has none (undefined), an empty one the empty text.
 */
function textOf(element: Element | undefined): string | undefined {
  if (!element) return undefined;
  if (element.text === "" && (element.hasAttributes || element.hasElements)) return undefined;
  return element.text;
}

/** The parts of a pushsms document a send reads, collected while the parser reads it. */
class Collector {
  private readonly stack: Element[] = [];
  readonly fields = new Map<string, Element>();
  readonly messages: Element[] = [];
  root: Element | undefined;

  open(tag: SaxesTagPlain): void {
    if (RESERVED_NAMES.has(tag.name)) throw malformed(`<${tag.name}> is a reserved name`);
    const names = Object.keys(tag.attributes);
    for (const name of names) if (RESERVED_NAMES.has(name)) throw malformed(`${name} is a reserved attribute name`);
    const parent = this.stack.at(-1);
    if (parent) parent.hasElements = true;
    const element: Element = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      hasAttributes: names.length > 0,
      hasElements: false,
      text: "",
    };
    const depth = this.stack.push(element);
    if (depth === 1) {
      if (tag.name !== "pushsms") throw malformed("the document must have one root element, <pushsms>");
      this.root = element;
    } else if (depth === 2) {
      if (SINGLE_ELEMENTS.includes(tag.name) && this.fields.has(tag.name)) {
        throw malformed(`<${tag.name}> appears more than once`);
      }
      if (!this.fields.has(tag.name)) this.fields.set(tag.name, element);
    } else if (depth === 3 && tag.name === "message" && parent === this.fields.get("messages")) {
      if (this.messages.length === MAX_XML_MESSAGES) {
        throw malformed(`the document has more than ${MAX_XML_MESSAGES} messages`);
      }
      this.messages.push(element);
    }
  }

  close(): void {
    this.stack.pop();
  }

  /** Text and CDATA of the root, its children and the messages; deeper text is never read. */
  text(text: string): void {
    const depth = this.stack.length;
    if (depth >= 1 && depth <= 3) this.stack[depth - 1]!.text += text;
  }
}

/**
 * Parses the document with saxes, a strict XML 1.0 parser: a bare `&` or `<` in an attribute,
 * an entity other than the five predefined ones, or a character reference to a character XML
 * does not allow is malformed, as expat and libxml2 find them. It reads CHUNK_CHARS a turn.
 */
async function collect(xml: string): Promise<Collector> {
  const collector = new Collector();
  const parser = new SaxesParser({ position: true });
  parser.on("opentag", (tag) => collector.open(tag as SaxesTagPlain));
  parser.on("closetag", () => collector.close());
  // As the document tree read it before: each run of text trimmed, CDATA as it is.
  parser.on("text", (text) => collector.text(text.trim()));
  parser.on("cdata", (text) => collector.text(text));
  try {
    for (let at = 0; at < xml.length; ) {
      let end = Math.min(at + CHUNK_CHARS, xml.length);
      // Never between the two halves of a surrogate pair.
      if (end < xml.length && (xml.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      parser.write(xml.slice(at, end));
      at = end;
      if (at < xml.length) await nextTurn();
    }
    parser.close();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const message = error instanceof Error ? error.message : "the document is not well-formed";
    throw malformed(message.replace(/^(\d+):(\d+): /, "line $1, column $2: ").replace(/\.$/, ""));
  }
  return collector;
}

/** Elements of <pushsms> that may appear once: two usernames or two sender IDs are ambiguous. */
const SINGLE_ELEMENTS = ["username", "password", "apikey", "api_key", "senderid", "sender_id", "route", "messages"];

/**
 * The credentials of an XML send. The document's own win: when it names any (a non-blank
 * username, password or API key), only those are read, never mixed with the request's. A
 * document without any takes `api_key`/`apikey`, or `username` and `password`, from the query
 * or the form fields beside `xmlstring`, as every legacy call does.
 */
export function xmlCredentials(doc: XmlSend, params: Record<string, string>): Record<string, string> {
  const inside: Record<string, string | undefined> = {
    username: doc.username,
    password: doc.password,
    api_key: doc.apiKey,
  };
  const source: Record<string, string | undefined> = Object.values(inside).some((value) => value?.trim())
    ? inside
    : params;
  const credentials: Record<string, string> = {};
  for (const name of ["username", "password", "api_key", "apikey"]) {
    const value = source[name];
    if (value !== undefined) credentials[name] = value;
  }
  return credentials;
}

/** The document's send; malformed (-9) when it cannot be read or passes a bound. Parsed a chunk a turn. */
export async function parseXmlSend(xml: string | undefined): Promise<XmlSend> {
  if (xml === undefined || xml.trim() === "") throw malformed("the xmlstring field is empty");
  if (Buffer.byteLength(xml) > MAX_XML_BYTES) throw malformed(`the document is larger than ${MAX_XML_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw malformed("DOCTYPE and entity declarations are not accepted");
  const over = xmlOverBounds(xml);
  if (over !== undefined) throw malformed(over);
  const { root, fields, messages } = await collect(keepAttributeWhitespace(xml));
  if (!root) throw malformed("the document must have one root element, <pushsms>");
  // An empty root (`<pushsms/>`) is well formed: it lacks what a send needs, and the send's own
  // checks name the first missing part (-1 for the credentials). Text in the root is no document.
  if (!root.hasElements && !root.hasAttributes && root.text !== "") {
    throw malformed("<pushsms> holds text, not elements");
  }
  const field = (name: string) => textOf(fields.get(name));
  return {
    username: field("username"),
    password: field("password"),
    apiKey: field("apikey") ?? field("api_key"),
    senderId: field("senderid") ?? field("sender_id"),
    route: field("route"),
    messages: messages.map((m) => ({
      recipient: (m.attributes.pno ?? "").trim(),
      message: m.attributes.msg !== undefined ? m.attributes.msg.trim() : (textOf(m) ?? ""),
    })),
  };
}
