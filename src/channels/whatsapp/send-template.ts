// A template send's payload: the template found in the catalog and checked sendable, its body,
// header and code-button parameters matched against what the template was approved with.
import { GatewayError } from "../../base/core/errors.js";
import type { TemplateCatalog } from "./catalog.js";
import {
  fileNameOf,
  type HEADER_MEDIA_TYPES,
  type PreparedMessage,
  publicHttpsUrl,
  texts,
  type WhatsAppSendRequest,
} from "./send-request.js";
import type { WhatsAppSender, WhatsAppSettings } from "./settings.js";
import { MEDIA_HEADERS, sendabilityOf } from "./templates.js";

export async function prepareTemplate(
  catalog: TemplateCatalog,
  settings: WhatsAppSettings,
  sender: WhatsAppSender,
  to: string,
  request: WhatsAppSendRequest,
): Promise<PreparedMessage> {
  const name = (request.template ?? "").trim();
  const template = await catalog.find(settings, sender, name, request.language);
  const sendability = sendabilityOf(template, settings.sandbox);
  if (!sendability.sendable) {
    throw new GatewayError("template_not_sendable", `Template "${name}" cannot be sent: ${sendability.reason}`);
  }
  if (sendability.testOnly && !settings.testNumbers.includes(to)) {
    throw new GatewayError(
      "template_not_sendable",
      `Template "${name}" is restricted to the account's test numbers, and ${to} is not one.`,
    );
  }
  const { shape } = sendability;
  const params = texts(request.params ?? [], "params");
  if (params.length !== shape.paramCount) {
    throw new GatewayError(
      "invalid_request",
      `Template "${name}" (${template.language}) ${paramsTaken(shape.paramCount)}, got ${params.length}.`,
      { field: "params" },
    );
  }
  const components: Record<string, unknown>[] = [];
  const meta: Record<string, unknown> = { type: "template", template: name, language: template.language, params };
  const headerMedia = MEDIA_HEADERS.find((format) => format === shape.headerFormat);
  if (headerMedia) {
    if (request.header_media_url === undefined) {
      throw new GatewayError(
        "invalid_request",
        `Template "${name}" was approved with ${withArticle(headerMedia.toLowerCase())} header: header_media_url is required.`,
        { field: "header_media_url" },
      );
    }
    const type = headerMedia.toLowerCase() as (typeof HEADER_MEDIA_TYPES)[number];
    if (request.header_media_type !== undefined && request.header_media_type !== type) {
      throw new GatewayError(
        "invalid_request",
        `Template "${name}" has ${withArticle(type)} header; header_media_type ${request.header_media_type} does not match it.`,
        { field: "header_media_type" },
      );
    }
    const link = publicHttpsUrl(request.header_media_url, "header_media_url");
    const media: Record<string, unknown> = { link: link.href };
    if (type === "document") media.filename = request.header_filename ?? fileNameOf(link);
    components.push({ type: "header", parameters: [{ type, [type]: media }] });
    meta.header_media_url = link.href;
    meta.header_media_type = type;
  } else {
    for (const field of ["header_media_url", "header_media_type", "header_filename"] as const) {
      if (request[field] !== undefined) {
        throw new GatewayError("invalid_request", `Template "${name}" has no media header; remove ${field}.`, {
          field,
        });
      }
    }
  }
  const headerParams = texts(request.header_params ?? [], "header_params");
  if (headerParams.length !== shape.headerParamCount) {
    throw new GatewayError(
      "invalid_request",
      shape.headerParamCount === 1
        ? `Template "${name}" has a header variable: header_params needs exactly one value.`
        : `Template "${name}" has no header variable; remove header_params.`,
      { field: "header_params" },
    );
  }
  if (headerParams.length === 1) {
    components.push({ type: "header", parameters: [{ type: "text", text: headerParams[0] }] });
    meta.header_params = headerParams;
  }
  if (params.length > 0) components.push({ type: "body", parameters: params.map((text) => ({ type: "text", text })) });
  if (shape.codeButtonIndex !== undefined) {
    if (params[0] === undefined) {
      throw new GatewayError("invalid_request", `Template "${name}" needs the code as params[0].`, {
        field: "params",
      });
    }
    components.push({
      type: "button",
      sub_type: "url",
      index: String(shape.codeButtonIndex),
      parameters: [{ type: "text", text: params[0] }],
    });
  }
  return {
    payload: {
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to,
      type: "template",
      template: {
        name,
        language: { code: template.language },
        ...(components.length > 0 ? { components } : {}),
      },
    },
    body: template.body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => params[Number(n) - 1] ?? whole),
    meta,
  };
}

/** What a template's body takes, said as its refusal says it: "takes no params", "expects 1 param ({{1}})". */
function paramsTaken(count: number): string {
  if (count === 0) return "takes no params";
  return count === 1 ? "expects 1 param ({{1}})" : `expects ${count} params ({{1}}..{{${count}}})`;
}

/** "an image", "a video", "a document". */
function withArticle(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}
