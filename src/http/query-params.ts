// Whole numbers a request carries, shared by every family: the bounds of row ids and pages, the
// schemas that hold request bodies, query strings and paths to them, and the readers of
// hand-parsed query and path values. Every whole number of a request has an upper bound: past
// it a value (2^63, 1e20) would reach a query PostgreSQL refuses ("bigint out of range").
import { Type } from "@fastify/type-provider-typebox";
import { GatewayError } from "../core/errors.js";

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

export interface PageRequest {
  page: number;
  perPage: number;
}

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

/** The `meta` of a paginated answer; a page past the end answers an empty list with this meta. */
export function pageMeta({ page, perPage }: PageRequest, total: number) {
  return { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}

/** A row id from the path; undefined when the text cannot be one (callers answer 404, as for an unknown id). */
export function pathId(raw: string): number | undefined {
  const id = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(id) && id > 0 && id <= MAX_ROW_ID ? id : undefined;
}
