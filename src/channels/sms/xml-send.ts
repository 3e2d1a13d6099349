// The XML API's `xmlstring` document:
//   <pushsms><username/><password/><senderid/><route/>?
//     <messages><message pno="9876543210" msg="text"/>…</messages></pushsms>
// Only a well-formed XML 1.0 document is read: saxes, a strict parser, checks it first (a bare
// `&` or `<` in an attribute, an entity other than the five predefined ones and character
// references are malformed, as expat and libxml2 find them). Then it is parsed with tag and
// attribute values kept as text (numbers keep leading zeros and "+"), never with a DOCTYPE (no
// entity expansion), and only up to MAX_XML_BYTES. Character references (`&#10;`, `&#x20AC;`)
// are decoded as XML defines them; anything the parsers cannot read is malformed (-9), never an
// internal error. The credentials may instead come beside the document, in the query or form
// (xmlCredentials).
import { XMLParser } from "fast-xml-parser";
import { SaxesParser } from "saxes";
import { GatewayError } from "../../base/core/errors.js";

export const MAX_XML_BYTES = 2 * 1024 * 1024;

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

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,8})|#x([0-9a-fA-F]{1,8}));/g;

/** Whether XML 1.0 allows the code point in a document (its `Char` production). */
function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/**
 * The five predefined entities and character references, in one pass (so `&amp;#10;` stays
 * the text `&#10;`). The parser's own decoder leaves character references undecoded unless
 * HTML entities are switched on. No other name gets here: wellFormedness refuses them.
 */
function decodeReferences(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (_whole, name: string | undefined, decimal: string | undefined, hex?: string) => {
    if (name) return PREDEFINED[name]!;
    const cp = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
    if (!isXmlChar(cp)) throw malformed(`&#${decimal ?? `x${hex}`}; is not a character XML allows`);
    return String.fromCodePoint(cp);
  });
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  entityDecoder: {
    decode: decodeReferences,
    // No DOCTYPE gets this far, so there are never entities of the document's own.
    setExternalEntities: () => undefined,
    addInputEntities: () => undefined,
    reset: () => undefined,
    setXmlVersion: () => undefined,
  },
  isArray: (name) => name === "message",
});

/**
 * Why the document is not well-formed XML, or undefined when it is. fast-xml-parser's own
 * validator lets a bare `&` or `<` in an attribute value and undeclared entities through.
 */
function wellFormedness(xml: string): string | undefined {
  try {
    new SaxesParser({ position: true }).write(xml).close();
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : "the document is not well-formed";
    return message.replace(/^(\d+):(\d+): /, "line $1, column $2: ").replace(/\.$/, "");
  }
}

/** The parser also refuses what is well-formed: reserved names (`__proto__`), deep nesting. */
function parse(xml: string): Record<string, unknown> {
  try {
    return parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw malformed(error instanceof Error ? error.message.replace(/\.$/, "") : "the parser refused it");
  }
}

/** Elements of <pushsms> that may appear once: two usernames or two sender IDs are ambiguous. */
const SINGLE_ELEMENTS = ["username", "password", "apikey", "api_key", "senderid", "sender_id", "route", "messages"];

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "#text" in value) return String((value as { "#text": unknown })["#text"]);
  return undefined;
}

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

export function parseXmlSend(xml: string | undefined): XmlSend {
  if (xml === undefined || xml.trim() === "") throw malformed("the xmlstring field is empty");
  if (Buffer.byteLength(xml) > MAX_XML_BYTES) throw malformed(`the document is larger than ${MAX_XML_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw malformed("DOCTYPE and entity declarations are not accepted");
  const notWellFormed = wellFormedness(xml);
  if (notWellFormed !== undefined) throw malformed(notWellFormed);
  const doc = parse(xml);
  const roots = Object.keys(doc).filter((name) => !name.startsWith("?"));
  if (roots.length !== 1 || roots[0] !== "pushsms" || Array.isArray(doc.pushsms)) {
    throw malformed("the document must have one root element, <pushsms>");
  }
  // An empty root (`<pushsms/>`) is well formed: it lacks what a send needs, and the send's own
  // checks name the first missing part (-1 for the credentials). Text in the root is no document.
  if (typeof doc.pushsms === "string" && doc.pushsms !== "") throw malformed("<pushsms> holds text, not elements");
  const root = (doc.pushsms === "" ? {} : doc.pushsms) as Record<string, unknown> | undefined;
  if (!root || typeof root !== "object") throw malformed("<pushsms> holds no elements");
  for (const name of SINGLE_ELEMENTS) {
    if (Array.isArray(root[name])) throw malformed(`<${name}> appears more than once`);
  }
  const messagesNode = root.messages as Record<string, unknown> | undefined;
  const list = (messagesNode && typeof messagesNode === "object" ? messagesNode.message : undefined) as
    | Record<string, unknown>[]
    | undefined;
  return {
    username: text(root.username),
    password: text(root.password),
    apiKey: text(root.apikey) ?? text(root.api_key),
    senderId: text(root.senderid) ?? text(root.sender_id),
    route: text(root.route),
    messages: (list ?? []).map((m) => ({
      recipient: String(m["@pno"] ?? ""),
      message: String(m["@msg"] ?? text(m) ?? ""),
    })),
  };
}
