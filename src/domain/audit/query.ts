// The query of the audit lists and exports (GET /api/v2/audit, GET /admin/api/audit, their
// /export, `audit list`): the filters from, to, action, actor, actor_user, credential, target, and
// the cursor page.
// A bad value is a 400 naming its parameter.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { cursorLimit, queryWindow } from "../../base/http/query-params.js";
import { type AuditFilter, decodeAuditCursor } from "./rows.js";

export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_LIMIT_MAX = 500;

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
export const AUDIT_FILTER_PARAMS = {
  from: text(40),
  to: text(40),
  action: text(64),
  actor: text(64),
  actor_user: text(64),
  credential: text(200),
  target: text(200),
};
export const AUDIT_PAGE_PARAMS = { limit: text(10), per_page: text(10), cursor: text(100) };
export type AuditQuery = {
  [K in keyof typeof AUDIT_FILTER_PARAMS | keyof typeof AUDIT_PAGE_PARAMS]?: string | undefined;
};

function invalid(field: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { field });
}

/** The filters of a query (times read in `timeZone` unless they name their own). */
export function auditFilterOf(query: AuditQuery, timeZone: string): AuditFilter {
  const given = (name: keyof AuditQuery) => {
    const value = query[name]?.trim();
    if (value?.includes("\u0000")) throw invalid(name, `Query parameter "${name}" holds a NUL character.`);
    return value ? value : undefined;
  };
  const filter: AuditFilter = { ...queryWindow(given, timeZone) };
  const action = given("action");
  if (action !== undefined) {
    if (!/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/.test(action)) {
      throw invalid(
        "action",
        `Query parameter "action" must be an action such as template.approve, or a thing such as template (got "${action}").`,
      );
    }
    filter.action = action;
  }
  const actor = given("actor");
  if (actor !== undefined) filter.actor = actor;
  const actorUser = given("actor_user");
  if (actorUser !== undefined) filter.actorUser = actorUser;
  const credential = given("credential");
  if (credential !== undefined) {
    // key:12, session:<id>, or the CLI's user@host: as the entries name it, a key's number alone too.
    filter.credential = /^\d+$/.test(credential) ? `key:${credential}` : credential;
  }
  const target = given("target");
  if (target !== undefined) filter.target = target;
  return filter;
}

/** The filters and the page of a list's query. */
export function auditQuery(query: AuditQuery, timeZone: string) {
  const filter = auditFilterOf(query, timeZone);
  const limit = cursorLimit(query, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX);
  const cursor = query.cursor?.trim();
  let before: number | undefined;
  if (cursor) {
    before = decodeAuditCursor(cursor);
    if (before === undefined) {
      throw invalid("cursor", 'Query parameter "cursor" is not a cursor this list gave (use next_cursor as it is).');
    }
  }
  return { filter, limit, before };
}
