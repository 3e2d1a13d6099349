// The console's one way to the gateway: the same v2 and operator APIs as every client, with
// the session cookie (sent by the browser) in place of an API key, and the session's CSRF
// token on every request that may change something. Every refusal becomes an ApiError that
// carries the API's code and words, which the pages show as they are.
import type { Static } from "typebox";
import type { PageMeta as PageMetaSchema } from "../../src/base/http/answer-schemas.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let csrfToken: string | undefined;

/** Set at sign-in (and from GET /console/session after a reload); cleared at sign-out. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when a request finds the session gone (401), so the app can show the sign-in. */
let onSessionEnded: (() => void) | undefined;
export function whenSessionEnds(callback: (() => void) | undefined): void {
  onSessionEnded = callback;
}

type Query = Record<string, string | number | boolean | undefined | null>;

/** `path` with the values of `query` that are not empty added to the query `path` may already hold. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  signal?: AbortSignal;
}

function errorOf(status: number, body: unknown, fallback: string): ApiError {
  if (body && typeof body === "object") {
    const envelope = body as { message?: unknown; error?: unknown };
    const error = (envelope.error && typeof envelope.error === "object" ? envelope.error : {}) as Record<
      string,
      unknown
    >;
    const code = typeof error.code === "string" ? error.code : `http_${status}`;
    const message = typeof envelope.message === "string" ? envelope.message : fallback;
    return new ApiError(status, code, message, error);
  }
  return new ApiError(status, `http_${status}`, fallback);
}

/** The full JSON answer of a request (envelope included); throws ApiError on a refusal. */
export async function request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? (options.json !== undefined || options.body !== undefined ? "POST" : "GET");
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET" && method !== "HEAD" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let body: BodyInit | undefined = options.body;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.contentType) {
    headers["content-type"] = options.contentType;
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      ...(body !== undefined ? { body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "network_error", "The gateway could not be reached. Check the connection and try again.");
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = errorOf(response.status, parsed, text.slice(0, 200) || response.statusText);
    if (response.status === 401 && !path.startsWith("/console/session")) onSessionEnded?.();
    throw error;
  }
  return parsed as T;
}

/**
 * Sends a file as the request body with its upload progress (fetch cannot report it, so this is
 * an XMLHttpRequest): the same headers, CSRF token and errors as `request`.
 */
export function upload<T>(
  path: string,
  file: Blob,
  contentType: string,
  onProgress: (sent: number, total: number) => void,
  method: "POST" | "PUT" = "POST",
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    xhr.setRequestHeader("accept", "application/json");
    xhr.setRequestHeader("content-type", contentType);
    if (csrfToken) xhr.setRequestHeader("x-csrf-token", csrfToken);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onerror = () =>
      reject(
        new ApiError(0, "network_error", "The upload did not reach the gateway. Check the connection and try again."),
      );
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        parsed = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(file.size, file.size);
        resolve(parsed as T);
        return;
      }
      if (xhr.status === 401) onSessionEnded?.();
      reject(errorOf(xhr.status, parsed, xhr.responseText.slice(0, 200) || xhr.statusText));
    };
    xhr.send(file);
  });
}

/** `data` of a resource or SMS envelope. */
export async function data<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const answer = await request<{ data: T }>(path, options);
  return answer.data;
}

/** A page's place in its list: the server's PageMeta schema. */
export type PageMeta = Static<typeof PageMetaSchema>;

export interface Paged<T> {
  data: T[];
  meta: PageMeta;
}

/** A page of `T`s; `Beside`, the fields a list answers next to `data` and `meta` (`subaccount_via`). */
export function paged<T, Beside extends object = object>(path: string, query: Query = {}): Promise<Paged<T> & Beside> {
  return request<Paged<T> & Beside>(withQuery(path, query));
}

/** Words for any error a page shows: the API's message and its code. */
export function describeError(error: unknown): { message: string; code: string } {
  if (error instanceof ApiError) return { message: error.message, code: error.code };
  if (error instanceof Error) return { message: error.message, code: "client_error" };
  return { message: String(error), code: "client_error" };
}
