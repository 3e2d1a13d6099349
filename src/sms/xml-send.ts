// The XML API's `xmlstring` document:
//   <pushsms><username/><password/><senderid/><route/>?
//     <messages><message pno="9876543210" msg="text"/>…</messages></pushsms>
// Parsed with tag and attribute values kept as text (numbers keep leading zeros and "+"),
// never with a DOCTYPE (no entity expansion), and only up to MAX_XML_BYTES.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { GatewayError } from "../core/errors.js";

export const MAX_XML_BYTES = 2 * 1024 * 1024;

export interface XmlSend {
  username?: string;
  password?: string;
  apiKey?: string;
  senderId?: string;
  route?: string;
  messages: { recipient: string; message: string }[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => name === "message",
});

function malformed(why: string): GatewayError {
  return new GatewayError("malformed_xml", `Malformed XML received: ${why}.`);
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "#text" in value) return String((value as { "#text": unknown })["#text"]);
  return undefined;
}

export function parseXmlSend(xml: string | undefined): XmlSend {
  if (xml === undefined || xml.trim() === "") throw malformed("the xmlstring field is empty");
  if (Buffer.byteLength(xml) > MAX_XML_BYTES) throw malformed(`the document is larger than ${MAX_XML_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw malformed("DOCTYPE and entity declarations are not accepted");
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw malformed(valid.err.msg.replace(/\.$/, ""));
  const doc = parser.parse(xml) as Record<string, unknown>;
  const root = doc.pushsms as Record<string, unknown> | undefined;
  if (!root || typeof root !== "object") throw malformed("the root element must be <pushsms>");
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
