// DLT link and callback white-lists of an account, per DLT entity (issue 40, item 1): the URLs
// (exact, or a prefix ending in / or ?), APK and OTT links, and callback numbers its SMS may
// carry. The operator adds them approved; the account's own request is pending until the
// operator approves it, as for DLT entities and headers (dlt.ts). Changes send DLT_CHANGED.
import { type Selectable, sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { isoUtc } from "../../base/core/clock.js";
import {
  type EntityLinks,
  emptyEntityLinks,
  indexUrl,
  normalizeApprovedUrl,
  normalizeCallbackNumber,
} from "../../base/core/dlt-links.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus, DltLinkKind, DltLinksTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { normalizeDltEntityId } from "./dlt.js";
import type { PendingRequests } from "./pending-requests.js";

export type DltLinkRow = Selectable<DltLinksTable>;
export type { DltLinkKind };

/** The field a kind's value is named by, in requests and answers. */
export const DLT_LINK_FIELD = { url: "url", callback: "number" } as const satisfies Record<DltLinkKind, string>;

/** The value normalised as the lists store it; refuses a malformed one (400 invalid_request). */
export function normalizeDltLink(kind: DltLinkKind, value: string): string {
  return kind === "url" ? normalizeApprovedUrl(value) : normalizeCallbackNumber(value);
}

/** The entity, normalised, if it is one of the account's (in any state); refuses an unknown one. */
async function accountEntity(db: Db, account: { id: number; username: string }, entityId: string): Promise<string> {
  const entity = normalizeDltEntityId(entityId);
  const row = await db
    .selectFrom("dlt_entities")
    .select("id")
    .where("account_id", "=", account.id)
    .where("entity_id", "=", entity)
    .executeTakeFirst();
  if (!row) {
    throw new GatewayError(
      "invalid_request",
      `DLT entity ID ${entity} is not registered for the account ${account.username}; its links and callback numbers need the entity first.`,
    );
  }
  return entity;
}

/**
 * Adds a link or number to an entity's list: approved when the operator adds it (adding one
 * again approves it again), pending when the account asks (asking again keeps it as it is).
 */
export async function addDltLink(
  db: Db,
  clock: Clock,
  account: { id: number; username: string },
  input: { kind: DltLinkKind; entityId: string; value: string; status: "approved" | "pending" },
): Promise<{ created: boolean; row: DltLinkRow }> {
  const entity_id = await accountEntity(db, account, input.entityId);
  const value = normalizeDltLink(input.kind, input.value);
  const values = {
    account_id: account.id,
    entity_id,
    kind: input.kind,
    value,
    status: input.status,
    created_at: clock.now().getTime(),
  };
  const key = ["account_id", "entity_id", "kind", "value"] as const;
  const inserted = await db
    .insertInto("dlt_links")
    .values(values)
    .onConflict((oc) =>
      input.status === "approved" ? oc.columns(key).doUpdateSet({ status: "approved" }) : oc.columns(key).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { created: true, row: inserted };
  const row = await db
    .selectFrom("dlt_links")
    .selectAll()
    .where("account_id", "=", account.id)
    .where("entity_id", "=", entity_id)
    .where("kind", "=", input.kind)
    .where("value", "=", value)
    .executeTakeFirstOrThrow();
  return { created: false, row };
}

/** Takes a link or number off an entity's list; false when it was not on it. */
export async function removeDltLink(
  db: Db,
  account: { id: number; username: string },
  input: { kind: DltLinkKind; entityId: string; value: string },
): Promise<{ entityId: string; value: string; removed: boolean }> {
  const entityId = normalizeDltEntityId(input.entityId);
  const value = normalizeDltLink(input.kind, input.value);
  const result = await db
    .deleteFrom("dlt_links")
    .where("account_id", "=", account.id)
    .where("entity_id", "=", entityId)
    .where("kind", "=", input.kind)
    .where("value", "=", value)
    .executeTakeFirst();
  return { entityId, value, removed: Number(result.numDeletedRows) > 0 };
}

export async function listDltLinks(
  db: Db,
  accountId: number,
  kind: DltLinkKind,
  entityId?: string | undefined,
): Promise<DltLinkRow[]> {
  let query = db.selectFrom("dlt_links").selectAll().where("account_id", "=", accountId).where("kind", "=", kind);
  if (entityId !== undefined && entityId.trim() !== "")
    query = query.where("entity_id", "=", normalizeDltEntityId(entityId));
  return query.orderBy("entity_id").orderBy("id").execute();
}

/**
 * Approves or rejects one request by its id; undefined when there is none of that kind. `reason`
 * (a rejection's, shown to the account) is kept only when rejected.
 */
export async function setDltLinkStatus(
  db: Db,
  kind: DltLinkKind,
  id: number,
  status: ApprovalStatus,
  reason: string | null = null,
): Promise<DltLinkRow | undefined> {
  return db
    .updateTable("dlt_links")
    .set({ status, rejection_reason: status === "rejected" ? reason : null })
    .where("id", "=", id)
    .where("kind", "=", kind)
    .returningAll()
    .executeTakeFirst();
}

/** The account's approved links and numbers, indexed per entity (what the send path checks). */
export async function approvedDltLinks(db: Db, accountId: number): Promise<Map<string, EntityLinks>> {
  const rows = await db
    .selectFrom("dlt_links")
    .select(["entity_id", "kind", "value"])
    .where("account_id", "=", accountId)
    .where("status", "=", "approved")
    .execute();
  const byEntity = new Map<string, EntityLinks>();
  for (const row of rows) {
    let links = byEntity.get(row.entity_id);
    if (!links) {
      links = emptyEntityLinks();
      byEntity.set(row.entity_id, links);
    }
    if (row.kind === "url") indexUrl(links, row.value);
    else links.callbacks.add(row.value);
  }
  return byEntity;
}

/** The links or callback numbers waiting for the operator, as part of the approval queue. */
export function pendingDltLinks(kind: DltLinkKind): (db: Db) => PendingRequests {
  return (db) =>
    db
      .selectFrom("dlt_links")
      .select([
        sql.lit(kind === "url" ? "dlt_url" : "dlt_callback").as("kind"),
        "id",
        "account_id",
        "value",
        sql<string | null>`'entity ' || entity_id`.as("detail"),
        "created_at",
      ])
      .where("status", "=", "pending")
      .where("kind", "=", kind);
}

/** A list entry as the APIs answer it: `url` or `number` by its kind, the other null. */
export function describeDltLink(row: DltLinkRow) {
  return {
    id: Number(row.id),
    entity_id: row.entity_id,
    url: row.kind === "url" ? row.value : null,
    number: row.kind === "callback" ? row.value : null,
    status: row.status,
    rejection_reason: row.rejection_reason,
    created_at: isoUtc(new Date(Number(row.created_at))),
  };
}
