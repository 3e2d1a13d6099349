// Whole numbers a request carries, shared by every family: the bounds of row ids and pages, the
// schemas that hold request bodies, query strings and paths to them, and the readers of
// hand-parsed query and path values; and a list's `from`/`to` window in the caller's time zone. Every whole number of a request has an upper bound: past
// it a value (2^63, 1e20) would reach a query PostgreSQL refuses ("bigint out of range").
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../core/errors.js";
import { parseInstant } from "../core/time.js";
import type { PageRequest } from "../store/paging.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Query parameters the route does not declare are ignored, not refused (the v2 GET send, as documented). */
    ignoresUnknownQuery?: boolean;
  }
}

/**
 * The cache-buster jQuery (`cache: false`) and many HTTP clients add to a GET: `?_=<timestamp>`.
 * Decision 0024's addendum: the one unknown name accepted, on every GET (and HEAD) of every family.
 */
export const CACHE_BUSTER = "_";

/**
 * Drops the cache-buster from a GET's or HEAD's query before anything reads or checks it (the
 * server's first onRequest hook), so no route refuses it as unknown or sees it at all. Any
 * other name a route does not take is still refused (refuseUndeclaredQuery), a typo included.
 */
export function dropCacheBuster(request: FastifyRequest): void {
  if (request.method !== "GET" && request.method !== "HEAD") return;
  const query = request.query as Record<string, unknown> | null;
  if (typeof query === "object" && query !== null && Object.hasOwn(query, CACHE_BUSTER)) delete query[CACHE_BUSTER];
}

/** Query parameters every v2 route takes beside its own: the API key may ride in the query. */
const CREDENTIAL_PARAMS = ["api_key"];

/**
 * Refuses a query parameter the route does not take (`declared`: its query schema's names), in
 * words that list what it takes: a misspelt filter would otherwise be ignored and answer the
 * whole list.
 */
function refuseUnknownQuery(query: unknown, declared: readonly string[]): void {
  if (typeof query !== "object" || query === null) return;
  const unknown = Object.keys(query).find((name) => !declared.includes(name) && !CREDENTIAL_PARAMS.includes(name));
  if (unknown === undefined) return;
  const takes = declared.length > 0 ? `this endpoint takes: ${declared.join(", ")}` : "this endpoint takes none";
  throw new GatewayError("invalid_request", `Unknown query parameter "${unknown}"; ${takes}.`, { field: unknown });
}

/**
 * Refuses a parameter the route takes given more than once (`?limit=1&limit=2`): the query parser
 * makes it a list, which no route takes, and the schema's "must be string" did not say why.
 */
function refuseRepeatedQuery(query: unknown, declared: readonly string[]): void {
  if (typeof query !== "object" || query === null) return;
  const repeated = Object.entries(query).find(
    ([name, value]) => Array.isArray(value) && (declared.includes(name) || CREDENTIAL_PARAMS.includes(name)),
  );
  if (repeated === undefined) return;
  const [name] = repeated;
  throw new GatewayError("invalid_request", `Query parameter "${name}" is given more than once; give it once.`, {
    field: name,
  });
}

/**
 * The query checks of a route that declares its query parameters (v2 and the operator API): an
 * unknown one refused (unless the route ignores them), and a repeated one.
 */
export function refuseUndeclaredQuery(request: FastifyRequest): void {
  const query = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  if (!query?.properties) return;
  const declared = Object.keys(query.properties);
  if (!request.routeOptions.config.ignoresUnknownQuery) refuseUnknownQuery(request.query, declared);
  refuseRepeatedQuery(request.query, declared);
}

/** The largest row id a request may name: ids are bigint columns read as JavaScript numbers. */
export const MAX_ROW_ID = Number.MAX_SAFE_INTEGER;
/** The last page of a paged list: far past any list, and page × per_page stays an offset both databases take. */
export const MAX_PAGE = 1_000_000;

/** A row id in a request schema (body, query string or path): a whole number from 1 to MAX_ROW_ID. */
export function RowId(options: { description?: string } = {}) {
  return Type.Integer({ minimum: 1, maximum: MAX_ROW_ID, ...options });
}

/** The params of a path ending in `:id` (or with one), such as /keys/:id. */
export const IdParams = Type.Object({ id: RowId() });

/** `page` in a query-string schema: from 1 to MAX_PAGE. */
export function PageNumber() {
  return Type.Integer({ minimum: 1, maximum: MAX_PAGE });
}

/** A whole number from the query string, within [min, max]; `fallback` when absent. */
export function queryInt(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  const text = value.trim();
  const parsed = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new GatewayError("invalid_request", `Query parameter "${name}" must be a whole number ${min} to ${max}.`, {
      field: name,
    });
  }
  return parsed;
}

export type { PageRequest } from "../store/paging.js";

/**
 * `page` and `per_page` of a list's query string, as text: their reader (pageOf) answers a bad
 * value with the bounds of the list at hand, which a schema could not word.
 */
export const PAGE_PARAMS = {
  per_page: Type.Optional(Type.String({ maxLength: 20 })),
  page: Type.Optional(Type.String({ maxLength: 20 })),
};

/** `page` (from 1) and `per_page` (1..max, default `perPageDefault`); out-of-range values are 400s. */
export function pageOf(
  query: { page?: string; per_page?: string },
  perPageDefault: number,
  perPageMax: number,
): PageRequest {
  return {
    perPage: queryInt(query.per_page, "per_page", perPageDefault, 1, perPageMax),
    page: queryInt(query.page, "page", 1, 1, MAX_PAGE),
  };
}

/**
 * The page size of a cursor list: `limit`, or `per_page` (the name the spec's other lists use)
 * read the same way; both at once is a 400 naming both.
 */
export function cursorLimit(query: { limit?: string; per_page?: string }, fallback: number, max: number): number {
  const given = (value: string | undefined) => value !== undefined && value !== "";
  if (given(query.limit) && given(query.per_page)) {
    throw new GatewayError("invalid_request", 'Give "limit" or "per_page" (the same page size), not both.', {
      field: "per_page",
    });
  }
  return given(query.per_page)
    ? queryInt(query.per_page, "per_page", fallback, 1, max)
    : queryInt(query.limit, "limit", fallback, 1, max);
}

/** The `meta` of a paginated answer; a page past the end answers an empty list with this meta. */
export function pageMeta({ page, perPage }: PageRequest, total: number) {
  return { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}

/** A row id from the path; undefined when the text cannot be one (callers answer 404, as for an unknown id). */
export function pathId(raw: string): number | undefined {
  const id = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(id) && id > 0 && id <= MAX_ROW_ID ? id : undefined;
}

/** How a window's refusal names its bounds and the zone of a time without one. */
export interface WindowWords {
  /** `Query parameter "from"` on the APIs, `--from` on the CLI. */
  name(bound: "from" | "to"): string;
  /** Where a time without a zone is read: "your account's time zone", "Asia/Kolkata (--time-zone)". */
  zone: string;
}

const QUERY_WORDS: WindowWords = { name: (bound) => `Query parameter "${bound}"`, zone: "your account's time zone" };

/** The query's words where the operator reads another account's dates: its zone named, not "your". */
export function accountZoneWords(timeZone: string): WindowWords {
  return { name: QUERY_WORDS.name, zone: `the account's time zone, ${timeZone}` };
}

/**
 * A list's `from` and `to` query values as epoch milliseconds: ISO 8601 dates or date-times in
 * `timeZone` unless they name their own (a date alone as `to` means the end of that day), `to`
 * after `from`. A bad value is a 400 `invalid_request` naming its parameter (in `words`, the CLI's own).
 */
export function queryWindow(
  given: (name: "from" | "to") => string | undefined,
  timeZone: string,
  words: WindowWords = QUERY_WORDS,
): { from?: number; to?: number } {
  const window: { from?: number; to?: number } = {};
  for (const name of ["from", "to"] as const) {
    const value = given(name);
    if (!value) continue;
    const at = parseInstant(value, timeZone, name === "to");
    if (!at) {
      throw new GatewayError(
        "invalid_request",
        `${words.name(name)} must be an ISO 8601 date or date-time, e.g. 2026-11-22, 2026-11-22T14:00:00 (${words.zone}) or 2026-11-22T08:30:00Z (got "${value}").`,
        { field: name },
      );
    }
    window[name] = at.getTime();
  }
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to) {
    const after = words.name === QUERY_WORDS.name ? '"from"' : words.name("from");
    throw new GatewayError("invalid_request", `${words.name("to")} must be after ${after}.`, { field: "to" });
  }
  return window;
}
