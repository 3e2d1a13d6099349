// Client for Meta's WhatsApp Cloud API (the Graph API): sends messages and lists a business
// account's templates over one keep-alive pool. A call is never retried here: a POST that timed
// out may still have reached Meta, and only the caller knows whether sending twice is worse.
import type { Pool } from "undici";
import { type Outbound, outboundPool } from "../../base/http/outbound-pools.js";

export interface GraphOptions {
  /** Where the Graph API is, e.g. https://graph.facebook.com (a local fake in tests); no trailing slash. */
  baseUrl: string;
  /** Version segment of every path, e.g. v21.0. */
  version: string;
  /** Milliseconds one request may take, reading the answer included (each page of a listing gets its own). */
  timeoutMs: number;
}

export interface GraphCredentials {
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
}

export type GraphErrorKind = "http" | "timeout" | "network" | "invalid_response";

export interface GraphErrorInit {
  kind: GraphErrorKind;
  httpStatus?: number;
  code?: number;
  subcode?: number;
  title?: string;
  userMessage?: string;
  details?: string;
  fbtraceId?: string;
  neverSent?: boolean;
  /** The underlying error (undici's), for logs. */
  cause?: unknown;
}

export class GraphError extends Error {
  readonly kind: GraphErrorKind;
  /** Meta's HTTP status, for kind "http". */
  readonly httpStatus?: number;
  /** Meta's error.code, e.g. 131047 (24-hour window closed), 132001 (no such template), 190 (bad token). */
  readonly code?: number;
  readonly subcode?: number;
  /** error.error_user_title when Meta gives one, else error.type (e.g. OAuthException). */
  readonly title?: string;
  /** error.error_user_msg: Meta's explanation meant for people. */
  readonly userMessage?: string;
  /** error.error_data.details. */
  readonly details?: string;
  readonly fbtraceId?: string;
  /**
   * True only when no connection could be opened (refused, no such host, connect time-out): the
   * request certainly never reached Meta. False means it may have, even for kind "network".
   */
  readonly neverSent: boolean;

  constructor(message: string, fields: GraphErrorInit) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = "GraphError";
    this.kind = fields.kind;
    this.httpStatus = fields.httpStatus;
    this.code = fields.code;
    this.subcode = fields.subcode;
    this.title = fields.title;
    this.userMessage = fields.userMessage;
    this.details = fields.details;
    this.fbtraceId = fields.fbtraceId;
    this.neverSent = fields.neverSent ?? false;
  }
}

export interface GraphComponent {
  /** HEADER, BODY, FOOTER or BUTTONS, upper case as Meta sends it. */
  type: string;
  /** HEADER only: TEXT, IMAGE, VIDEO, DOCUMENT or LOCATION. */
  format?: string;
  text?: string;
  buttons?: Array<{ type: string; text?: string; url?: string; phone_number?: string; example?: string[] }>;
  example?: unknown;
}

export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  components: GraphComponent[];
  rejected_reason?: string;
}

const TEMPLATE_FIELDS = "id,name,status,category,language,components,rejected_reason";
/** 100 pages of 100 is far beyond Meta's per-account template limit: more means a paging loop. */
const MAX_TEMPLATE_PAGES = 100;
/** An answer larger than this is not one Meta would give. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const INVALID = { kind: "invalid_response" } as const;
/** Errors of opening a connection: the request was never written. */
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

export class GraphClient {
  private readonly pool: Outbound<Pool>;
  private readonly origin: string;
  private readonly prefix: string;

  constructor(private readonly options: GraphOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.prefix = `${base.pathname.replace(/\/+$/, "")}/${options.version}`;
    this.pool = outboundPool(this.origin, {
      connections: 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.timeoutMs },
    });
  }

  /**
   * POSTs the payload as given to the phone number's messages edge. Resolves with the wamid
   * and, when Meta gives them, the recipient's wa_id and message_status ("accepted", or
   * "held_for_quality_assessment" / "paused" for some marketing templates).
   */
  async sendMessage(
    creds: GraphCredentials,
    payload: Record<string, unknown>,
  ): Promise<{ messageId: string; waId?: string; messageStatus?: string }> {
    const path = `${this.prefix}/${encodeURIComponent(creds.phoneNumberId)}/messages`;
    const answer = await this.call("POST", path, creds.accessToken, JSON.stringify(payload));
    const message = isRecord(answer) && Array.isArray(answer.messages) ? answer.messages[0] : undefined;
    const messageId = isRecord(message) ? text(message.id) : undefined;
    if (!messageId) {
      throw new GraphError("Graph API accepted the message but its answer has no messages[0].id", INVALID);
    }
    const contact = isRecord(answer) && Array.isArray(answer.contacts) ? answer.contacts[0] : undefined;
    return {
      messageId,
      waId: isRecord(contact) ? text(contact.wa_id) : undefined,
      messageStatus: isRecord(message) ? text(message.message_status) : undefined,
    };
  }

  /** Every template of the business account, in Meta's order, reading page after page. */
  async listTemplates(creds: GraphCredentials): Promise<GraphTemplate[]> {
    const first = `${this.prefix}/${encodeURIComponent(creds.wabaId)}/message_templates?fields=${TEMPLATE_FIELDS}&limit=100`;
    const templates: GraphTemplate[] = [];
    let path: string | undefined = first;
    for (let page = 0; path !== undefined; page++) {
      if (page === MAX_TEMPLATE_PAGES) {
        throw new GraphError(`Template listing still had a next page after ${page} pages`, INVALID);
      }
      const answer = await this.call("GET", path, creds.accessToken);
      if (!isRecord(answer) || !Array.isArray(answer.data)) {
        throw new GraphError("Template listing answer has no data array", INVALID);
      }
      templates.push(...answer.data.map(parseTemplate));
      path = this.nextPage(answer.paging, first);
    }
    return templates;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /**
   * Meta's paging.next is an absolute URL. It is followed only on our own origin (the access
   * token goes with it); otherwise the page after is asked for with cursors.after.
   */
  private nextPage(paging: unknown, first: string): string | undefined {
    if (!isRecord(paging) || paging.next === undefined) return undefined;
    const next = text(paging.next);
    const url = next && URL.canParse(next) ? new URL(next) : undefined;
    if (url && url.origin === this.origin) return `${url.pathname}${url.search}`;
    const after = isRecord(paging.cursors) ? text(paging.cursors.after) : undefined;
    if (!after) throw new GraphError("Template listing has a next page but no cursor to reach it", INVALID);
    return `${first}&after=${encodeURIComponent(after)}`;
  }

  /** One request; resolves with the parsed JSON of a 2xx answer, throws GraphError otherwise. */
  private async call(method: "GET" | "POST", path: string, accessToken: string, body?: string): Promise<unknown> {
    const where = `${method} ${path.split("?")[0]}`;
    const { timeoutMs } = this.options;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let status: number;
    let raw: string;
    try {
      const response = await (await this.pool.get()).request({
        method,
        path,
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      raw = await readCapped(response.body, where);
    } catch (error) {
      if (error instanceof GraphError) throw error;
      throw connectionError(error, where, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
    if (status < 200 || status >= 300) throw metaError(status, raw);
    const parsed = parseJson(raw);
    if (parsed === undefined) {
      throw new GraphError(`${where} answered HTTP ${status} with a body that is not JSON`, {
        kind: "invalid_response",
        httpStatus: status,
      });
    }
    return parsed;
  }
}

async function readCapped(body: AsyncIterable<Buffer>, where: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw new GraphError(`${where} answered with more than ${MAX_BODY_BYTES} bytes`, INVALID);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function connectionError(error: unknown, where: string, timedOut: boolean, timeoutMs: number): GraphError {
  const code = isRecord(error) ? text(error.code) : undefined;
  const reason = error instanceof Error ? error.message : String(error);
  if (timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new GraphError(`${where}: no complete answer within ${timeoutMs} ms`, { kind: "timeout", cause: error });
  }
  if (code === "UND_ERR_CONNECT_TIMEOUT") {
    return new GraphError(`${where}: could not connect within ${timeoutMs} ms`, {
      kind: "timeout",
      neverSent: true,
      cause: error,
    });
  }
  const neverSent = code !== undefined && CONNECT_FAILURES.has(code);
  return new GraphError(`${where} failed: ${reason}`, { kind: "network", neverSent, cause: error });
}

/** Meta's error answer: {error: {message, type, code, error_subcode, error_user_title, error_user_msg, error_data, fbtrace_id}}. */
function metaError(status: number, raw: string): GraphError {
  const parsed = parseJson(raw);
  const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  if (!error) {
    const excerpt = raw.trim().slice(0, 200);
    return new GraphError(`Graph API answered HTTP ${status}${excerpt ? `: ${excerpt}` : " with no body"}`, {
      kind: "http",
      httpStatus: status,
    });
  }
  // error_data is an object on WhatsApp errors, but some Graph errors carry it JSON-encoded in a string.
  const data = typeof error.error_data === "string" ? parseJson(error.error_data) : error.error_data;
  return new GraphError(text(error.message) ?? `Graph API answered HTTP ${status}`, {
    kind: "http",
    httpStatus: status,
    code: integer(error.code),
    subcode: integer(error.error_subcode),
    title: text(error.error_user_title) ?? text(error.type),
    userMessage: text(error.error_user_msg),
    details: isRecord(data) ? text(data.details) : undefined,
    fbtraceId: text(error.fbtrace_id),
  });
}

function parseTemplate(item: unknown): GraphTemplate {
  const template = isRecord(item) ? item : {};
  const [id, name, language, status] = [template.id, template.name, template.language, template.status].map(text);
  if (!id || !name || !language || !status) {
    throw new GraphError("Template listing has an item without id, name, language and status", INVALID);
  }
  return {
    id,
    name,
    language,
    status,
    category: text(template.category) ?? "",
    components: Array.isArray(template.components) ? template.components.flatMap(parseComponent) : [],
    rejected_reason: text(template.rejected_reason),
  };
}

function parseComponent(item: unknown): GraphComponent[] {
  if (!isRecord(item) || !text(item.type)) return [];
  const component: GraphComponent = { type: text(item.type)! };
  if (text(item.format)) component.format = text(item.format);
  if (typeof item.text === "string") component.text = item.text;
  if (Array.isArray(item.buttons)) {
    component.buttons = item.buttons.flatMap((button) => {
      if (!isRecord(button) || !text(button.type)) return [];
      const example = Array.isArray(button.example) ? button.example.filter((e) => typeof e === "string") : undefined;
      return [
        {
          type: text(button.type)!,
          ...(typeof button.text === "string" ? { text: button.text } : {}),
          ...(text(button.url) ? { url: text(button.url) } : {}),
          ...(text(button.phone_number) ? { phone_number: text(button.phone_number) } : {}),
          ...(example ? { example } : {}),
        },
      ];
    });
  }
  if (item.example !== undefined) component.example = item.example;
  return [component];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A non-empty string, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
