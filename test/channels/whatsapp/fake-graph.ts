// A local stand-in for Meta's Graph API (real HTTP on 127.0.0.1, an ephemeral port): the
// messages edge and the template listing, answering with Meta's shapes and error bodies, and
// scriptable to fail, hang or reset. Also builders of Meta's webhook callbacks.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Agent, request } from "undici";
import type { GraphTemplate } from "../../../src/channels/whatsapp/graph.js";
import { signMetaPayload } from "../../../src/channels/whatsapp/meta-webhook.js";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
}

/** An answer of the given status (a string body goes out as it is), none ever, a late normal one, or a reset. */
export type Scripted = { status: number; body: unknown } | { hang: true } | { delayMs: number } | { reset: true };

export interface FakeGraph {
  /** http://127.0.0.1:<port> */
  url: string;
  version: string;
  /** Everything received, in order. */
  requests: RecordedRequest[];
  /** Only the POSTs to a messages edge. */
  sends(): RecordedRequest[];
  /** The phone number's WABA and the one access token it accepts (any other: 401, code 190). */
  addPhoneNumber(phoneNumberId: string, wabaId: string, accessToken: string): void;
  setTemplates(wabaId: string, templates: GraphTemplate[]): void;
  /** The next `count` (default 1) POSTs to a messages edge get this instead of the normal answer. */
  scriptNext(answer: Scripted, count?: number): void;
  /** POSTs a callback as Meta does: JSON, X-Hub-Signature-256 under appSecret unless `signature` is given. */
  sendWebhook(
    targetUrl: string,
    payload: unknown,
    options: { appSecret: string; signature?: string },
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

const SEND_PATH = /^\/([^/]+)\/([^/]+)\/messages$/;
const TEMPLATES_PATH = /^\/([^/]+)\/([^/]+)\/message_templates$/;

/** Meta's error body; `fbtrace_id` differs on every answer as Meta's does. */
export function metaErrorBody(fields: {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
  details?: string;
}): { error: Record<string, unknown> } {
  const { details, ...rest } = fields;
  const data = details ? { error_data: { messaging_product: "whatsapp", details } } : {};
  return { error: { ...rest, ...data, fbtrace_id: `A${randomBytes(9).toString("base64url")}` } };
}

const badToken = (): Answer => ({
  status: 401,
  body: metaErrorBody({
    message: "Invalid OAuth access token - Cannot parse access token",
    type: "OAuthException",
    code: 190,
  }),
});

const unsupported = (method: string, id: string): Answer => ({
  status: 400,
  body: metaErrorBody({
    message: `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    type: "GraphMethodException",
    code: 100,
    error_subcode: 33,
  }),
});

const invalidParameter = (details: string): Answer => ({
  status: 400,
  body: metaErrorBody({ message: "(#100) Invalid parameter", type: "OAuthException", code: 100, details }),
});

/** Distinct {{n}} placeholders of a template's BODY text. */
function bodyPlaceholders(template: GraphTemplate): number {
  const body = template.components.find((c) => c.type.toUpperCase() === "BODY")?.text ?? "";
  return new Set([...body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => m[1])).size;
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export async function startFakeGraph(options: { version?: string; pageSize?: number } = {}): Promise<FakeGraph> {
  const version = options.version ?? "v21.0";
  const pageSize = options.pageSize ?? 25;
  const phones = new Map<string, { wabaId: string; accessToken: string }>();
  const templates = new Map<string, GraphTemplate[]>();
  const scripts: Scripted[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<http.ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const webhookAgent = new Agent({ keepAliveTimeout: 1_000 });
  let url = "";
  let sequence = 0;

  const bearer = (headers: http.IncomingHttpHeaders) => /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];

  function send(phoneNumberId: string, token: string | undefined, body: unknown): Answer {
    const phone = phones.get(phoneNumberId);
    if (!phone) return unsupported("post", phoneNumberId);
    if (token !== phone.accessToken) return badToken();
    if (!isRecord(body) || body.messaging_product !== "whatsapp") {
      return invalidParameter("The parameter messaging_product is required and must be 'whatsapp'.");
    }
    if (typeof body.to !== "string" || body.to === "") return invalidParameter("The parameter to is required.");
    if (typeof body.type !== "string" || body.type === "") return invalidParameter("The parameter type is required.");
    if (body.type === "text" && !(isRecord(body.text) && typeof body.text.body === "string" && body.text.body)) {
      return invalidParameter("The parameter text['body'] is required.");
    }
    if (body.type === "template") {
      const refused = checkTemplate(phone.wabaId, body.template);
      if (refused) return refused;
    }
    const messageId = `wamid.${Buffer.from(`${phoneNumberId}:${body.to}:${++sequence}:${randomBytes(6).toString("hex")}`).toString("base64")}`;
    return {
      status: 200,
      body: {
        messaging_product: "whatsapp",
        contacts: [{ input: body.to, wa_id: body.to.replace(/\D/g, "") }],
        messages: [{ id: messageId, ...(body.type === "template" ? { message_status: "accepted" } : {}) }],
      },
    };
  }

  function checkTemplate(wabaId: string, template: unknown): Answer | undefined {
    const name = isRecord(template) && typeof template.name === "string" ? template.name : undefined;
    const language = isRecord(template) && isRecord(template.language) ? template.language.code : undefined;
    if (!isRecord(template) || !name || typeof language !== "string") {
      return invalidParameter("The parameter template['name'] and template['language']['code'] are required.");
    }
    const found = (templates.get(wabaId) ?? []).find(
      (t) => t.name === name && t.language === language && t.status === "APPROVED",
    );
    if (!found) {
      return {
        status: 400,
        body: metaErrorBody({
          message: "(#132001) Template name does not exist in the translation",
          type: "OAuthException",
          code: 132001,
          details: `template name (${name}) does not exist in ${language}`,
        }),
      };
    }
    const components = Array.isArray(template.components) ? template.components : [];
    const body = components.find((c) => isRecord(c) && String(c.type).toLowerCase() === "body");
    const given = isRecord(body) && Array.isArray(body.parameters) ? body.parameters.length : 0;
    const expected = bodyPlaceholders(found);
    if (given === expected) return undefined;
    return {
      status: 400,
      body: metaErrorBody({
        message: "(#132000) Number of parameters does not match the expected number of params",
        type: "OAuthException",
        code: 132000,
        details: `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
      }),
    };
  }

  function listTemplates(wabaId: string, token: string | undefined, query: URLSearchParams): Answer {
    const tokens = [...phones.values()].filter((p) => p.wabaId === wabaId).map((p) => p.accessToken);
    if (tokens.length === 0 && !templates.has(wabaId)) return unsupported("get", wabaId);
    if (!token || !tokens.includes(token)) return badToken();
    const all = templates.get(wabaId) ?? [];
    const limit = Math.min(Number(query.get("limit")) || pageSize, pageSize);
    const after = query.get("after");
    const start = after ? Number(Buffer.from(after, "base64url").toString()) : 0;
    if (!Number.isInteger(start) || start < 0) return invalidParameter("The parameter after is not a valid cursor.");
    const fields = query.get("fields")?.split(",");
    const page = all.slice(start, start + limit).map((template) => {
      if (!fields) return { name: template.name, status: template.status, id: template.id };
      return Object.fromEntries(Object.entries(template).filter(([key]) => key === "id" || fields.includes(key)));
    });
    if (page.length === 0) return { status: 200, body: { data: [] } };
    const end = start + page.length;
    const cursor = (n: number) => Buffer.from(String(n)).toString("base64url");
    const next = new URL(`${url}/${version}/${wabaId}/message_templates`);
    for (const [key, value] of query) if (key !== "after") next.searchParams.set(key, value);
    next.searchParams.set("after", cursor(end));
    return {
      status: 200,
      body: {
        data: page,
        paging: {
          cursors: { before: cursor(start), after: cursor(end) },
          ...(end < all.length ? { next: next.href } : {}),
        },
      },
    };
  }

  function answer(req: http.IncomingMessage, recorded: RecordedRequest, query: URLSearchParams): Answer {
    const token = bearer(req.headers);
    const sendMatch = SEND_PATH.exec(recorded.path);
    if (req.method === "POST" && sendMatch?.[1] === version) return send(sendMatch[2]!, token, recorded.body);
    const listMatch = TEMPLATES_PATH.exec(recorded.path);
    if (req.method === "GET" && listMatch?.[1] === version) return listTemplates(listMatch[2]!, token, query);
    return {
      status: 404,
      body: metaErrorBody({ message: `Unknown path components: ${recorded.path}`, type: "OAuthException", code: 2500 }),
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const target = new URL(req.url ?? "/", "http://fake");
      const raw = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        headers: { ...req.headers },
        body: raw === "" ? undefined : jsonOrText(raw),
      };
      requests.push(recorded);
      // A string body goes out as it is (an HTML error page, an empty 500); anything else as JSON.
      const reply = ({ status, body }: Answer) => {
        const type = typeof body === "string" ? "text/html; charset=UTF-8" : "application/json; charset=UTF-8";
        res.writeHead(status, { "content-type": type }).end(typeof body === "string" ? body : JSON.stringify(body));
      };
      const script = req.method === "POST" && SEND_PATH.test(recorded.path) ? scripts.shift() : undefined;
      if (!script) return reply(answer(req, recorded, target.searchParams));
      if ("hang" in script) {
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
      } else if ("reset" in script) req.socket.destroy();
      else if ("delayMs" in script) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          reply(answer(req, recorded, target.searchParams));
        }, script.delayMs);
        timers.add(timer);
      } else reply(script);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    version,
    requests,
    sends: () => requests.filter((r) => r.method === "POST" && SEND_PATH.test(r.path)),
    addPhoneNumber(phoneNumberId, wabaId, accessToken) {
      phones.set(phoneNumberId, { wabaId, accessToken });
    },
    setTemplates(wabaId, list) {
      templates.set(wabaId, structuredClone(list));
    },
    scriptNext(script, count = 1) {
      for (let i = 0; i < count; i++) scripts.push(script);
    },
    async sendWebhook(targetUrl, payload, { appSecret, signature }) {
      const body = JSON.stringify(payload);
      const response = await request(targetUrl, {
        method: "POST",
        dispatcher: webhookAgent,
        headers: {
          "content-type": "application/json",
          "user-agent": "facebookexternalua",
          "x-hub-signature-256": signature ?? signMetaPayload(body, appSecret),
        },
        body,
      });
      return { status: response.statusCode, body: await response.body.text() };
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await webhookAgent.close();
    },
  };
}

// Meta's callback shapes: {object, entry: [{id: WABA id, changes: [{field, value}]}]}.

const seconds = (ms: number | undefined) => String(Math.floor((ms ?? Date.now()) / 1000));

function callback(wabaId: string, field: string, value: unknown, extra: Record<string, unknown> = {}) {
  return { object: "whatsapp_business_account", entry: [{ id: wabaId, ...extra, changes: [{ value, field }] }] };
}

function metadata(o: { phoneNumberId: string; displayPhoneNumber?: string }) {
  return { display_phone_number: o.displayPhoneNumber ?? "15550000000", phone_number_id: o.phoneNumberId };
}

/** One callback carrying the entries of all the given ones, in order (Meta batches). */
export function mergeCallbacks(...callbacks: unknown[]): unknown {
  const entries = callbacks.flatMap((c) => (c as { entry: unknown[] }).entry);
  return { object: "whatsapp_business_account", entry: entries };
}

export function statusCallback(o: {
  wabaId: string;
  phoneNumberId: string;
  displayPhoneNumber?: string;
  messageId: string;
  status: "sent" | "delivered" | "read" | "failed";
  recipientId: string;
  at?: number;
  errors?: Array<{ code: number; title: string; message?: string; details?: string }>;
  /** pricing.category of sent and delivered statuses; default utility. */
  pricingCategory?: string;
}): unknown {
  const status: Record<string, unknown> = {
    id: o.messageId,
    status: o.status,
    timestamp: seconds(o.at),
    recipient_id: o.recipientId,
  };
  // Meta sends conversation and pricing with sent and delivered, not with read or failed.
  if (o.status === "sent" || o.status === "delivered") {
    const category = o.pricingCategory ?? "utility";
    status.conversation = { id: randomBytes(16).toString("hex"), origin: { type: category } };
    status.pricing = { billable: true, pricing_model: "PMP", category, type: "regular" };
  }
  if (o.errors) {
    status.errors = o.errors.map((e) => ({
      code: e.code,
      title: e.title,
      ...(e.message ? { message: e.message } : {}),
      ...(e.details ? { error_data: { details: e.details } } : {}),
      href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
    }));
  }
  return callback(o.wabaId, "messages", { messaging_product: "whatsapp", metadata: metadata(o), statuses: [status] });
}

const MEDIA_MIME: Record<string, string> = {
  image: "image/jpeg",
  video: "video/mp4",
  document: "application/pdf",
  audio: "audio/ogg; codecs=opus",
  sticker: "image/webp",
};

/** An inbound message; `type` defaults to text (`text` is its body, or a button's or reply's title, or an emoji). */
export function inboundCallback(o: {
  wabaId: string;
  phoneNumberId: string;
  displayPhoneNumber?: string;
  from: string;
  messageId?: string;
  at?: number;
  text?: string;
  type?: string;
  mediaId?: string;
  caption?: string;
  profileName?: string;
}): unknown {
  const type = o.type ?? "text";
  const messageId = o.messageId ?? `wamid.${randomBytes(18).toString("base64")}`;
  const message: Record<string, unknown> = { from: o.from, id: messageId, timestamp: seconds(o.at), type };
  const mime = MEDIA_MIME[type];
  if (type === "text") message.text = { body: o.text ?? "" };
  else if (mime) {
    message[type] = {
      ...(o.caption !== undefined && type !== "audio" && type !== "sticker" ? { caption: o.caption } : {}),
      mime_type: mime,
      sha256: randomBytes(32).toString("base64"),
      id: o.mediaId ?? String(1e15 + Math.floor(Math.random() * 1e14)),
    };
  } else if (type === "button") message.button = { payload: o.text ?? "", text: o.text ?? "" };
  else if (type === "interactive") {
    message.interactive = { type: "button_reply", button_reply: { id: "reply-1", title: o.text ?? "" } };
  } else if (type === "reaction") message.reaction = { message_id: "wamid.reacted", emoji: o.text ?? "👍" };
  else if (type === "unsupported") {
    message.errors = [{ code: 131051, title: "Message type unknown", message: "Message type unknown" }];
  }
  return callback(o.wabaId, "messages", {
    messaging_product: "whatsapp",
    metadata: metadata(o),
    contacts: [{ profile: { name: o.profileName ?? "Test Customer" }, wa_id: o.from }],
    messages: [message],
  });
}

/** A template status change; Meta sends the template id as a JSON number and reason "NONE" when there is none. */
export function templateStatusCallback(o: {
  wabaId: string;
  templateId: string;
  name: string;
  language: string;
  event: string;
  reason?: string;
}): unknown {
  const id =
    /^\d+$/.test(o.templateId) && Number.isSafeInteger(Number(o.templateId)) ? Number(o.templateId) : o.templateId;
  const value = {
    event: o.event,
    message_template_id: id,
    message_template_name: o.name,
    message_template_language: o.language,
    reason: o.reason ?? "NONE",
  };
  return callback(o.wabaId, "message_template_status_update", value, { time: Number(seconds(undefined)) });
}
