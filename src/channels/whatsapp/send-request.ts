// What a WhatsApp send request may carry, and the checks of its fields: the recipient, template
// parameters, texts free of control characters, public https media links.
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import { publicHostProblem } from "../../domain/webhooks/url-guard.js";

export const MAX_TEXT = 4096;
export const MAX_CAPTION = 1024;
export const MAX_PARAM = 1024;
export const MEDIA_TYPES = ["image", "video", "document", "audio"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const HEADER_MEDIA_TYPES = ["image", "video", "document"] as const;

export interface WhatsAppSendRequest {
  to: string | number;
  template?: string;
  params?: Array<string | number>;
  language?: string;
  message?: string;
  media_url?: string;
  media_type?: MediaType;
  caption?: string;
  header_media_url?: string;
  header_media_type?: (typeof HEADER_MEDIA_TYPES)[number];
  header_filename?: string;
  header_params?: Array<string | number>;
}

/** What goes upstream and what the message row records. */
export interface PreparedMessage {
  payload: Record<string, unknown>;
  /** The message as a person would read it (template body with its params, text, or caption). */
  body: string;
  meta: Record<string, unknown>;
}

/** Fields that go only with a template, and only with a media_url. */
const TEMPLATE_ONLY = [
  "params",
  "language",
  "header_media_url",
  "header_media_type",
  "header_filename",
  "header_params",
];
const MEDIA_ONLY = ["media_type", "caption"];

/**
 * The one kind of message the request is (a template, a text or a media link), refused with no
 * field of another kind. None given names the first of the choice (as bulk's recipients or
 * group_id does), several the one past the first.
 */
export function kindOf(request: WhatsAppSendRequest): "template" | "message" | "media_url" {
  const kinds = (["template", "message", "media_url"] as const).filter((k) => request[k] !== undefined);
  const kind = kinds[0];
  if (kind === undefined || kinds.length > 1) {
    throw new GatewayError(
      "invalid_request",
      kind === undefined
        ? "Provide one of template, message or media_url."
        : `Provide exactly one of template, message or media_url (got ${kinds.join(" and ")}).`,
      { field: kinds[1] ?? "template" },
    );
  }
  const stray = [...(kind !== "template" ? TEMPLATE_ONLY : []), ...(kind !== "media_url" ? MEDIA_ONLY : [])].filter(
    (field) => (request as unknown as Record<string, unknown>)[field] !== undefined,
  );
  if (stray.length > 0) {
    const owner = TEMPLATE_ONLY.includes(stray[0] ?? "") ? "template" : "media_url";
    throw new GatewayError("invalid_request", `Field "${stray[0]}" goes only with ${owner}.`, { field: stray[0] });
  }
  return kind;
}

export function recipientOf(raw: string | number): string {
  const parsed = parseE164(String(raw));
  if (!parsed) {
    throw new GatewayError(
      "invalid_recipient",
      `"to" must be a WhatsApp number in digits with its country code, e.g. 919876543210 (got "${String(raw).slice(0, 32)}").`,
      { field: "to" },
    );
  }
  return parsed.digits;
}

/** A list's texts (params, header_params), each refusal naming its entry (`params[1]`), as the schema's do. */
export function texts(values: ReadonlyArray<string | number>, field: string): string[] {
  return values.map((value, index) => {
    const text = String(value);
    const entry = `${field}[${index}]`;
    if (text.trim() === "") {
      throw new GatewayError("invalid_request", `${entry} is empty.`, { field: entry });
    }
    // WhatsApp refuses parameters with line breaks, tabs or more than four spaces in a row.
    if (/[\n\r\t]| {5}/.test(text)) {
      throw new GatewayError(
        "invalid_request",
        `${entry} contains a line break, a tab or more than four spaces in a row, which WhatsApp refuses in parameters.`,
        { field: entry },
      );
    }
    refuseControls(text, entry, entry, CONTROLS);
    if ([...text].length > MAX_PARAM) {
      throw new GatewayError("invalid_request", `${entry} is longer than ${MAX_PARAM} characters.`, { field: entry });
    }
    return text;
  });
}

// C0 control characters and DEL: nothing a person writes, and PostgreSQL refuses U+0000 outright.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
export const CONTROLS = /[\u0000-\u001f\u007f]/;
/** The same, less the tab and line breaks a text message or a caption may carry. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
export const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export function refuseControls(text: string, name: string, field: string, controls: RegExp): void {
  const found = controls.exec(text)?.[0];
  if (found === undefined) return;
  const code = `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  throw new GatewayError("invalid_request", `${name} contains the control character ${code}.`, { field });
}

export function publicHttpsUrl(raw: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError("invalid_request", `Field "${field}" is not an absolute URL.`, { field });
  }
  if (url.protocol !== "https:") {
    throw new GatewayError("invalid_request", `Field "${field}" must be an https URL WhatsApp can fetch.`, { field });
  }
  const problem = url.username || url.password ? "contains a user name or password" : publicHostProblem(url);
  if (problem) {
    throw new GatewayError("invalid_request", `Field "${field}" must be a public URL; it ${problem}.`, { field });
  }
  return url;
}

/** A Map, not an object: an extension named like a member of Object.prototype (`.constructor`) is no media type. */
const EXTENSIONS = new Map<string, MediaType>([
  ["jpg", "image"],
  ["jpeg", "image"],
  ["png", "image"],
  ["webp", "image"],
  ["mp4", "video"],
  ["3gp", "video"],
  ["mp3", "audio"],
  ["ogg", "audio"],
  ["opus", "audio"],
  ["aac", "audio"],
  ["amr", "audio"],
  ["m4a", "audio"],
]);

/** The media type a URL's extension names; documents otherwise (PDF, spreadsheets, ...). */
export function mediaTypeOf(url: URL): MediaType {
  const extension = url.pathname.split(".").pop()?.toLowerCase() ?? "";
  return EXTENSIONS.get(extension) ?? "document";
}

/** The URL's last path segment, decoded; as written when it is not valid percent-encoded UTF-8 (`%E0%A4`). */
export function fileNameOf(url: URL): string {
  const encoded = url.pathname.split("/").pop() ?? "";
  let last: string;
  try {
    last = decodeURIComponent(encoded);
  } catch {
    last = encoded;
  }
  return last === "" ? "document" : last.slice(0, 240);
}
