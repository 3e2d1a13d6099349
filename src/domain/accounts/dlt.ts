// DLT registrations of an account: the entity IDs (principal entities) and headers the
// operator has white-listed on India's DLT platform. Sends naming others are refused.
import { type Selectable, sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus, DltEntitiesTable, DltHeadersTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { DLT_MATCHING_MODES, type DltMatching } from "./account-fields.js";
import { NO_DETAIL, type PendingRequests } from "./pending-requests.js";
import { registrationFixes } from "./registrations.js";

export type DltEntityRow = Selectable<DltEntitiesTable>;
export type DltHeaderRow = Selectable<DltHeadersTable>;

/** Signal sent (payload: the account id) after an account's DLT entity IDs or headers change. */
export const DLT_CHANGED = "dlt_changed";

const ENTITY_ID = /^[A-Za-z0-9]{1,30}$/;
const HEADER = /^[A-Za-z0-9]{3,11}$/;

export function normalizeDltEntityId(entityId: string): string {
  const trimmed = entityId.trim();
  if (!ENTITY_ID.test(trimmed)) {
    throw new GatewayError("invalid_request", "A DLT entity ID is 1 to 30 letters or digits (usually 19 digits).", {
      field: "entity_id",
    });
  }
  return trimmed.toUpperCase();
}

/** How an account's templates are matched (`accounts.dlt_matching`); refuses any other word. */
export function dltMatchingMode(value: string): DltMatching {
  const mode = DLT_MATCHING_MODES.find((m) => m === value.trim().toLowerCase());
  if (!mode) throw new GatewayError("invalid_request", `DLT matching is strict or lenient, not "${value}".`);
  return mode;
}

/** A stored telemarketer chain (`dlt_entities.tm_chain`, comma-separated) as its IDs; [] for none. */
export function splitChain(stored: string | null): string[] {
  return stored ? stored.split(",") : [];
}

/**
 * The chain as it travels and as the operator sees it: the declared one with the operator's
 * current TM ID (DLT_TM_ID) last. A chain is stored as declared, with the TM ID set when it was
 * declared; one declared before DLT_TM_ID was set (or by a CLI without it) gets it here, and one
 * that names the current TM ID anywhere but last has it moved there (it comes last, once).
 * Unset, or no chain declared ([]): the chain as stored. A chain declared under an earlier
 * DLT_TM_ID keeps that ID, as an upstream TM, until it is declared again.
 */
export function carriedTmChain(stored: readonly string[], operatorTmId: string | undefined): string[] {
  const own = operatorTmId?.trim().toUpperCase();
  if (!own || stored.length === 0 || stored.at(-1) === own) return [...stored];
  return [...stored.filter((id) => id !== own), own];
}

/** Whether a sender ID has the form of a DLT header (a 12-digit numeric sender cannot be one). */
export function fitsDltHeader(sender: string): boolean {
  return HEADER.test(sender.trim());
}

export function normalizeDltHeader(header: string): string {
  const trimmed = header.trim();
  if (!HEADER.test(trimmed)) {
    throw new GatewayError("invalid_request", "A DLT header is 3 to 11 letters or digits (6 letters in India).");
  }
  return trimmed.toUpperCase();
}

/** Sets the default DLT entity ID without updateAccount's check: onboarding has just added the entity in the same transaction. */
export async function setDefaultDltEntity(db: Db, accountId: number, entityId: string): Promise<void> {
  await db.updateTable("accounts").set({ default_dlt_entity_id: entityId }).where("id", "=", accountId).execute();
}

/** White-lists an entity ID for the account; adding one again approves it again. */
export async function addDltEntity(db: Db, clock: Clock, accountId: number, entityId: string): Promise<DltEntityRow> {
  const entity = normalizeDltEntityId(entityId);
  return db
    .insertInto("dlt_entities")
    .values({ account_id: accountId, entity_id: entity, status: "approved", created_at: clock.now().getTime() })
    .onConflict((oc) => oc.columns(["account_id", "entity_id"]).doUpdateSet({ status: "approved" }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** White-lists a header (sender ID as registered on DLT); adding one again approves it again. */
export async function addDltHeader(db: Db, clock: Clock, accountId: number, header: string): Promise<DltHeaderRow> {
  const normalized = normalizeDltHeader(header);
  return db
    .insertInto("dlt_headers")
    .values({ account_id: accountId, header: normalized, status: "approved", created_at: clock.now().getTime() })
    .onConflict((oc) =>
      oc.columns(["account_id", "header"]).doUpdateSet({ status: "approved", rejection_reason: null }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * White-lists an approved sender ID as the account's DLT header (decision 0151): in India the
 * operator approves a sender ID because its header is registered on DLT. Undefined when the
 * sender ID has not the form of a header (a long number); `before` is the header's status before
 * (null: it was not there), so a caller audits only a change.
 */
export async function whitelistSenderAsHeader(
  db: Db,
  clock: Clock,
  accountId: number,
  sender: string,
): Promise<{ row: DltHeaderRow; before: ApprovalStatus | null } | undefined> {
  if (!fitsDltHeader(sender)) return undefined;
  const header = normalizeDltHeader(sender);
  const before = await db
    .selectFrom("dlt_headers")
    .select("status")
    .where("account_id", "=", accountId)
    .where("header", "=", header)
    .executeTakeFirst();
  return { row: await addDltHeader(db, clock, accountId, header), before: before?.status ?? null };
}

/**
 * An account's own request for an entity ID or a header: `pending` until the operator approves
 * it. Asking again for one the account has keeps it as it is (an approved one stays approved, a
 * rejected one rejected); `created` says whether this call added it.
 */
export async function requestDltRegistration(
  db: Db,
  clock: Clock,
  accountId: number,
  kind: "entity" | "header",
  value: string,
): Promise<{ created: boolean; row: DltEntityRow | DltHeaderRow }> {
  const created_at = clock.now().getTime();
  if (kind === "entity") {
    const entity_id = normalizeDltEntityId(value);
    const inserted = await db
      .insertInto("dlt_entities")
      .values({ account_id: accountId, entity_id, status: "pending", created_at })
      .onConflict((oc) => oc.columns(["account_id", "entity_id"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { created: true, row: inserted };
    const row = await db
      .selectFrom("dlt_entities")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("entity_id", "=", entity_id)
      .executeTakeFirstOrThrow();
    return { created: false, row };
  }
  const header = normalizeDltHeader(value);
  const inserted = await db
    .insertInto("dlt_headers")
    .values({ account_id: accountId, header, status: "pending", created_at })
    .onConflict((oc) => oc.columns(["account_id", "header"]).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { created: true, row: inserted };
  const row = await db
    .selectFrom("dlt_headers")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("header", "=", header)
    .executeTakeFirstOrThrow();
  return { created: false, row };
}

/**
 * Approves or rejects one registration by its id; undefined when there is none. `reason` (a
 * rejection's, shown to the account) is kept only when rejected.
 */
export async function setDltStatus(
  db: Db,
  kind: "entity" | "header",
  id: number,
  status: ApprovalStatus,
  reason: string | null = null,
): Promise<DltEntityRow | DltHeaderRow | undefined> {
  const set = { status, rejection_reason: status === "rejected" ? reason : null };
  return kind === "entity"
    ? db.updateTable("dlt_entities").set(set).where("id", "=", id).returningAll().executeTakeFirst()
    : db.updateTable("dlt_headers").set(set).where("id", "=", id).returningAll().executeTakeFirst();
}

export async function listDltEntities(db: Db, accountId: number): Promise<DltEntityRow[]> {
  return db.selectFrom("dlt_entities").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
}

export async function listDltHeaders(db: Db, accountId: number): Promise<DltHeaderRow[]> {
  return db.selectFrom("dlt_headers").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
}

/** True when the entity ID was registered for the account (and is now removed with its link lists, and no longer its default). */
export async function removeDltEntity(db: Db, accountId: number, entityId: string): Promise<boolean> {
  const entity = normalizeDltEntityId(entityId);
  const result = await db
    .deleteFrom("dlt_entities")
    .where("account_id", "=", accountId)
    .where("entity_id", "=", entity)
    .executeTakeFirst();
  await db
    .updateTable("accounts")
    .set({ default_dlt_entity_id: null })
    .where("id", "=", accountId)
    .where("default_dlt_entity_id", "=", entity)
    .execute();
  await db.deleteFrom("dlt_links").where("account_id", "=", accountId).where("entity_id", "=", entity).execute();
  return Number(result.numDeletedRows) > 0;
}

/** The entity ID, normalised, if it is white-listed for the account; refuses it otherwise, saying how to add it. */
export async function requireWhitelistedEntity(
  db: Db,
  account: { id: number; username: string },
  entityId: string,
): Promise<string> {
  const entity = normalizeDltEntityId(entityId);
  if (!(await isEntityWhitelisted(db, account.id, entity))) {
    throw new GatewayError(
      "invalid_request",
      `DLT entity ID ${entity} is not white-listed for the account ${account.username}; white-list it first: \`${registrationFixes.dltEntity(account.username, entity).command}\`.`,
    );
  }
  return entity;
}

export async function removeDltHeader(db: Db, accountId: number, header: string): Promise<boolean> {
  const result = await db
    .deleteFrom("dlt_headers")
    .where("account_id", "=", accountId)
    .where("header", "=", normalizeDltHeader(header))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function isEntityWhitelisted(db: Db, accountId: number, entityId: string): Promise<boolean> {
  const row = await db
    .selectFrom("dlt_entities")
    .select("id")
    .where("account_id", "=", accountId)
    .where("entity_id", "=", entityId.trim().toUpperCase())
    .where("status", "=", "approved")
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's approved entity IDs (with their telemarketer chains) and headers, which the send path checks. */
export async function approvedDltRegistrations(
  db: Db,
  accountId: number,
): Promise<{ entities: string[]; headers: string[]; chains: Map<string, string[]> }> {
  const [entities, headers] = await Promise.all([
    db
      .selectFrom("dlt_entities")
      .select(["entity_id", "tm_chain"])
      .where("account_id", "=", accountId)
      .where("status", "=", "approved")
      .execute(),
    db
      .selectFrom("dlt_headers")
      .select("header")
      .where("account_id", "=", accountId)
      .where("status", "=", "approved")
      .execute(),
  ]);
  const chains = new Map(entities.flatMap((e) => (e.tm_chain ? [[e.entity_id, splitChain(e.tm_chain)] as const] : [])));
  return { entities: entities.map((e) => e.entity_id), headers: headers.map((h) => h.header), chains };
}

export async function isHeaderWhitelisted(db: Db, accountId: number, header: string): Promise<boolean> {
  const row = await db
    .selectFrom("dlt_headers")
    .select("id")
    .where("account_id", "=", accountId)
    .where("header", "=", header.trim().toUpperCase())
    .where("status", "=", "approved")
    .executeTakeFirst();
  return row !== undefined;
}

/** The DLT entity IDs waiting for the operator, as part of the approval queue. */
export function pendingDltEntities(db: Db): PendingRequests {
  return db
    .selectFrom("dlt_entities")
    .select([
      sql.lit("dlt_entity").as("kind"),
      "id",
      "account_id",
      "entity_id as value",
      NO_DETAIL.as("detail"),
      "created_at",
    ])
    .where("status", "=", "pending");
}

/** The DLT headers waiting for the operator, as part of the approval queue. */
export function pendingDltHeaders(db: Db): PendingRequests {
  return db
    .selectFrom("dlt_headers")
    .select([
      sql.lit("dlt_header").as("kind"),
      "id",
      "account_id",
      "header as value",
      NO_DETAIL.as("detail"),
      "created_at",
    ])
    .where("status", "=", "pending");
}

/** An entity as the operator sees it: its chain as carried, `operatorTmId` (DLT_TM_ID) last. */
export function describeDltEntity(row: DltEntityRow, operatorTmId: string | undefined) {
  return {
    id: row.id,
    entity_id: row.entity_id,
    status: row.status,
    rejection_reason: row.rejection_reason,
    tm_chain: carriedTmChain(splitChain(row.tm_chain), operatorTmId),
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function describeDltHeader(row: DltHeaderRow) {
  return {
    id: row.id,
    header: row.header,
    status: row.status,
    rejection_reason: row.rejection_reason,
    created_at: new Date(row.created_at).toISOString(),
  };
}
