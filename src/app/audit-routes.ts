// The audit log, read (issue 42, item 4; decision 0120):
//   GET /admin/api/audit          every entry, or one account's with `account`; filters from, to,
//                                 action, actor, actor_user, target; newest first with a cursor
//   GET /admin/api/audit/export   the same entries oldest first, CSV or JSON Lines
//   GET /admin/api/audit/verify   the chain checked: entries, head, the first bad entry
//   GET /api/v2/audit, /export    the account's own: changes to it and changes it made; another
//                                 account's (the operator's) entries without session, key or address
import type { Selectable } from "kysely";
import { Type } from "typebox";
import { exportAnswer, exportFormatOf, sendExport } from "../base/http/exports.js";
import { operatorAnswer, type TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import type { AuditLogTable } from "../base/store/schema.js";
import type { Db } from "../base/store/store.js";
import {
  ancestorsOf,
  getAccount,
  levelsBelow,
  operatorAccountIds,
  requireAccount,
  SUB_ACCOUNT_CARD,
  usernamesOf,
} from "../domain/accounts/index.js";
import {
  AUDIT_EXPORT_COLUMNS,
  AUDIT_FILTER_PARAMS,
  AUDIT_PAGE_PARAMS,
  AuditPage,
  type AuditQuery,
  AuditVerification,
  auditFilterOf,
  auditQuery,
  describeAuditEntry,
  eachAuditEntry,
  encodeAuditCursor,
  hashedFields,
  listAudit,
  verifyAuditChain,
} from "../domain/audit/index.js";

type Deps = Pick<Runtime, "store">;

const OwnQuery = Type.Object({ ...AUDIT_FILTER_PARAMS, ...AUDIT_PAGE_PARAMS });
const OwnExportQuery = Type.Object({ ...AUDIT_FILTER_PARAMS, format: Type.Optional(Type.String({ maxLength: 10 })) });
const account = Type.Optional(Type.String({ maxLength: 64 }));
const AdminQuery = Type.Object({ ...OwnQuery.properties, account });
const AdminExportQuery = Type.Object({ ...OwnExportQuery.properties, account });

/** Whose entries a caller reads: every account's (the operator), or one account's as itself (`own`). */
type Reader = { accountId?: number; own?: boolean };

/**
 * Rows as answers show them: the concerned account's username; on an account's own list, no one
 * else's credential or address, and no balance of an account outside its own tree (a transfer's
 * `credits.transfer_in` to a stranger is a change it made, but the stranger's balance is not its
 * business).
 */
async function described(db: Db, rows: Selectable<AuditLogTable>[], reader: Reader) {
  const names = await usernamesOf(db, [
    ...new Set(rows.flatMap((row) => (row.account_id === null ? [] : [Number(row.account_id)]))),
  ]);
  const own = reader.own ? reader.accountId : undefined;
  const outside = own !== undefined ? await outsideTree(db, rows, own) : new Set();
  // A sub-account reads its own price as `your price` (decision 0150), in its log too (decision 0165).
  const whiteLabel = own !== undefined && ((await getAccount(db, own))?.parent_id ?? null) !== null;
  // Another customer's team logins are its own business (decision 0189).
  const named = own !== undefined ? await namedActors(db, own) : undefined;
  return rows.map((row) => {
    const entry = describeAuditEntry(row, row.account_id === null ? null : (names.get(Number(row.account_id)) ?? null));
    const foreign = reader.own && Number(row.actor_account_id) !== reader.accountId;
    const stranger = row.account_id !== null && outside.has(Number(row.account_id));
    const priced = whiteLabel && Number(row.account_id) === own;
    return {
      ...entry,
      ...(foreign ? { credential: null, address: null } : {}),
      ...(named && !named.includes(Number(row.actor_account_id)) ? { actor_user: null } : {}),
      ...(stranger ? { before: withoutBalance(entry.before), after: withoutBalance(entry.after) } : {}),
      ...(priced ? { before: asOwnPrice(entry.before), after: asOwnPrice(entry.after) } : {}),
    };
  });
}

/**
 * An entry's side as a sub-account may read it: its card (or its parent's price marked up) as
 * `your price`, never the card's name, the markup or the parent's name.
 */
function asOwnPrice(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const { price_card, markup_percent, parent: _parent, ...rest } = value as Record<string, unknown>;
  const priced = price_card !== undefined || markup_percent !== undefined;
  return priced ? { ...rest, price_card: SUB_ACCOUNT_CARD } : rest;
}

/** The accounts of `rows` other than `readerId` that are not below it (its sub-accounts, theirs). */
async function outsideTree(db: Db, rows: Selectable<AuditLogTable>[], readerId: number): Promise<Set<number>> {
  const others = new Set(
    rows.flatMap((row) =>
      row.account_id === null || Number(row.account_id) === readerId ? [] : [Number(row.account_id)],
    ),
  );
  const outside = new Set<number>();
  for (const id of others) if ((await levelsBelow(db, readerId, id)) === undefined) outside.add(id);
  return outside;
}

/**
 * The accounts whose logins `readerId` reads: itself, its parents (its provider) and the
 * operator's, whose staff it reads (decision 0141); a transfer's sender is named, not its login.
 */
async function namedActors(db: Db, readerId: number): Promise<number[]> {
  const parents = await ancestorsOf(db, (await getAccount(db, readerId))?.parent_id ?? null);
  return [readerId, ...parents.map((parent) => parent.id), ...(await operatorAccountIds(db))];
}

function withoutBalance(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const { balance: _balance, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** The account `account` names (a username), for the operator's filter. */
export async function readerOf(db: Db, account: string | undefined): Promise<Reader> {
  const name = account?.trim();
  return name ? { accountId: (await requireAccount(db, name)).id } : {};
}

/** One page of the log, as GET /admin/api/audit and `audit list` answer it. */
export async function auditPage(db: Db, query: AuditQuery, timeZone: string, reader: Reader) {
  const { filter, limit, before } = auditQuery(query, timeZone);
  if (reader.accountId !== undefined) filter.accountId = reader.accountId;
  if (reader.own && reader.accountId !== undefined) filter.namedActors = await namedActors(db, reader.accountId);
  const page = await listAudit(db, filter, limit, before);
  return {
    status: "success" as const,
    data: await described(db, page.rows, reader),
    meta: { limit, next_cursor: page.next === undefined ? null : encodeAuditCursor(page.next) },
  };
}

/** Every entry the filters match, oldest first, described a page at a time. */
async function* exportRows(db: Db, query: AuditQuery, timeZone: string, reader: Reader) {
  const filter = auditFilterOf(query, timeZone);
  if (reader.accountId !== undefined) filter.accountId = reader.accountId;
  if (reader.own && reader.accountId !== undefined) filter.namedActors = await namedActors(db, reader.accountId);
  // The operator's export carries what each hash covers (decision 0162); an account's own does
  // not: it covers fields its lines leave out (others' credentials, balances outside its tree).
  const page = async (rows: Selectable<AuditLogTable>[]) => {
    const entries = await described(db, rows, reader);
    return reader.own ? entries : entries.map((entry, i) => ({ ...entry, ...hashedFields(rows[i]!) }));
  };
  let rows: Selectable<AuditLogTable>[] = [];
  for await (const row of eachAuditEntry(db, filter)) {
    rows.push(row);
    if (rows.length === 500) {
      yield* await page(rows);
      rows = [];
    }
  }
  yield* await page(rows);
}

/** The operator's export columns: an entry's, then what its hash covers. */
const CHECKABLE_COLUMNS = [...AUDIT_EXPORT_COLUMNS, "prev_hash", "hashed"];

export function registerAdminAuditRoutes(admin: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  admin.get("/audit", { schema: { querystring: AdminQuery, response: { "2xx": AuditPage } } }, async (request) =>
    auditPage(db, request.query, request.principal!.timeZone, await readerOf(db, request.query.account)),
  );
  admin.get(
    "/audit/export",
    {
      schema: {
        querystring: AdminExportQuery,
        response: { 200: exportAnswer("CSV or JSON Lines: the audit log, oldest first.") },
      },
    },
    async (request, reply) => {
      const format = exportFormatOf(request.query.format);
      // Checked before the answer starts: a bad filter is a 400, not a broken download.
      auditFilterOf(request.query, request.principal!.timeZone);
      const reader = await readerOf(db, request.query.account);
      const rows = exportRows(ctx.store.scanDb(), request.query, request.principal!.timeZone, reader);
      return sendExport(reply, format, "audit", CHECKABLE_COLUMNS, rows);
    },
  );
  admin.get(
    "/audit/verify",
    {
      schema: {
        response: operatorAnswer(AuditVerification),
      },
    },
    async () => {
      const report = await verifyAuditChain(ctx.store.scanDb());
      return { status: "success", data: { ...report, broken: report.broken ?? null } };
    },
  );
}

export function registerV2AuditRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const resource = { envelope: "status" } as const;
  v2.get(
    "/audit",
    {
      config: resource,
      schema: {
        operationId: "listAudit",
        summary: "The account's audit log: changes to it and changes it made, newest first, with filters and a cursor",
        tags: ["account"],
        querystring: OwnQuery,
        response: { 200: AuditPage },
      },
    },
    async (request) => {
      const principal = request.principal!;
      return auditPage(db, request.query, principal.timeZone, { accountId: principal.accountId, own: true });
    },
  );
  v2.get(
    "/audit/export",
    {
      config: resource,
      schema: {
        operationId: "exportAudit",
        summary: "The account's audit log, oldest first, as CSV or JSON Lines",
        tags: ["account"],
        querystring: OwnExportQuery,
        response: { 200: exportAnswer("CSV with a header row (format=csv), or JSON Lines (format=jsonl).") },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const format = exportFormatOf(request.query.format);
      auditFilterOf(request.query, principal.timeZone);
      const reader = { accountId: principal.accountId, own: true };
      const rows = exportRows(ctx.store.scanDb(), request.query, principal.timeZone, reader);
      return sendExport(reply, format, "audit", AUDIT_EXPORT_COLUMNS, rows);
    },
  );
}
