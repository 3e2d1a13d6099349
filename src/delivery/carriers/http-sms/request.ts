// Renders one message into the aggregator's request: every placeholder value is encoded for
// where it lands (URL and form: percent-encoded; JSON body: JSON-escaped), never pasted raw.
import { internationalDigits } from "../../../base/core/indian-mobile.js";
import type { MessageRow } from "../../../base/store/schema.js";
import { type TmChainFormat, tmChainValue } from "../../../domain/accounts/index.js";
import { fillTemplate, type HttpSmsConfig, jsonEscape, type Placeholder } from "./config.js";

export interface RenderedRequest {
  method: "GET" | "POST";
  /** The origin the pool is bound to. */
  origin: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/**
 * The placeholder values of one message: an Indian recipient gets 91, an international one is
 * E.164 digits already; the DLT telemarketer chain (`tmChain`, its entity's) as its IDs
 * `PE,TM1,…` and as their SHA-256, empty without one.
 */
export function placeholderValues(
  message: MessageRow,
  callbackUrl: string,
  tmChain?: readonly string[],
): Record<Placeholder, string> {
  const digits = internationalDigits(message.recipient, message.route);
  const entityId = message.dlt_entity_id;
  const chain = (format: TmChainFormat) => (entityId && tmChain ? tmChainValue(entityId, tmChain, format) : "");
  return {
    to: message.recipient,
    to_e164: `+${digits}`,
    to_digits: digits,
    from: message.sender,
    text: message.body,
    unicode: message.encoding === "ucs2" ? "1" : "0",
    dlt_entity_id: message.dlt_entity_id ?? "",
    dlt_template_id: message.dlt_template_id ?? "",
    dlt_tm_chain: chain("ids"),
    dlt_tm_chain_hash: chain("hash"),
    message_id: message.id,
    callback_url: callbackUrl,
  };
}

export class RenderError extends Error {
  override readonly name = "RenderError";
}

export function renderRequest(config: HttpSmsConfig, values: Record<Placeholder, string>): RenderedRequest {
  const url = new URL(fillTemplate(config.url, values, encodeURIComponent));
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(config.headers ?? {})) {
    const value = fillTemplate(template, values, (v) => v);
    // A header carries no line breaks (a message text would split it) and only Latin-1 text.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) {
      throw new RenderError(`Header ${name} would contain a line break or a character HTTP headers cannot carry.`);
    }
    headers[name.toLowerCase()] = value;
  }
  const auth = config.auth;
  if (auth.type === "basic") {
    headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
  } else if (auth.type === "bearer") {
    headers.authorization = `Bearer ${auth.token}`;
  } else if (auth.type === "header") {
    headers[auth.name.toLowerCase()] = auth.value;
  }
  let path = `${url.pathname}${url.search}`;
  if (auth.type === "query") {
    // Appended by hand: URLSearchParams would re-encode the rendered query (%20 becoming +).
    path += `${url.search ? "&" : "?"}${encodeURIComponent(auth.name)}=${encodeURIComponent(auth.value)}`;
  }
  let body: string | undefined;
  if (config.method === "POST" && config.body) {
    const json = config.body.content_type === "application/json";
    body = fillTemplate(config.body.template, values, json ? jsonEscape : encodeURIComponent);
    headers["content-type"] = json ? "application/json; charset=utf-8" : "application/x-www-form-urlencoded";
  }
  return { method: config.method, origin: url.origin, path, headers, body };
}
