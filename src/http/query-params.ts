// Query-string and path values shared by the JSON families: whole numbers within bounds,
// pages, and row ids.
import { GatewayError } from "../core/errors.js";

/** A whole number from the query string, within [min, max]; `fallback` when absent. */
export function queryInt(value: string | undefined, name: string, fallback: number, min: number, max?: number): number {
  if (value === undefined || value === "") return fallback;
  const text = value.trim();
  const parsed = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || (max !== undefined && parsed > max)) {
    const range = max === undefined ? `at least ${min}` : `${min} to ${max}`;
    throw new GatewayError("invalid_request", `Query parameter "${name}" must be a whole number ${range}.`, {
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
    page: queryInt(query.page, "page", 1, 1, 1_000_000),
  };
}

/** The `meta` of a paginated answer; a page past the end answers an empty list with this meta. */
export function pageMeta({ page, perPage }: PageRequest, total: number) {
  return { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}

/** A row id from the path; undefined when the text cannot be one (callers answer 404, as for an unknown id). */
export function pathId(raw: string): number | undefined {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
