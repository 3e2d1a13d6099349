// Content templates (DLT): the texts an account may send on the transactional route, with
// {#var#} placeholders. The operator approves them; only approved ones are matched.
import { sql } from "kysely";
import { type Clock, isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { refuseNul } from "../../base/core/text-checks.js";
import { pagedRows } from "../../base/store/paging.js";
import type { ApprovalStatus, TemplateRow } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Actor, recordChange } from "../audit/index.js";
import { normalizeDltEntityId, normalizeDltHeader } from "./dlt.js";
import type { PendingRequests } from "./pending-requests.js";

/** Signal sent (payload: the account id) after an account's templates change, so caches of them drop it. */
export const TEMPLATES_CHANGED = "templates_changed";
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "rejected"];
export const MAX_TEMPLATE_NAME = 100;
export const MAX_TEMPLATE_CONTENT = 2000;
const MAX_NOTES = 500;
const DLT_TEMPLATE_ID = /^[A-Za-z0-9]{1,30}$/;
/** PostgreSQL text cannot hold U+0000, and no real template has it. */

export interface NewTemplateInput {
  name: string;
  /** Empty only in a `draft`: a template whose text the account has not given yet. */
  content: string;
  /** The v2 API's draft (the spec requires only the name): empty content allowed, never approved so. */
  draft?: boolean;
  dltTemplateId?: string | null;
  entityId?: string | null;
  sender?: string | null;
  notes?: string | null;
  /** Approve at once (the operator creating it); otherwise it waits as pending. */
  approve?: boolean;
}

/** A placeholder, in any case as the matcher reads it (channels/sms/dlt-matcher.ts), and what fixed text must hold besides. */
const PLACEHOLDER = /\{#var#\}/gi;
const FIXED_TEXT = /[\p{L}\p{N}]/u;

/** An optional text field: blank means absent. */
function optional(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function checkedInput(input: NewTemplateInput) {
  const name = input.name.trim();
  refuseNul(name, "A template name", "name");
  if (name.length < 1 || name.length > MAX_TEMPLATE_NAME) {
    throw new GatewayError("invalid_request", `A template name is 1 to ${MAX_TEMPLATE_NAME} characters.`, {
      field: "name",
    });
  }
  const content = input.content;
  const blankAllowed = input.draft === true && content === "";
  refuseNul(content, "Template content", "content");
  if ((content.trim() === "" && !blankAllowed) || content.length > MAX_TEMPLATE_CONTENT) {
    throw new GatewayError(
      "invalid_request",
      `Template content is 1 to ${MAX_TEMPLATE_CONTENT} characters and not blank; mark variable parts with {#var#}.`,
      { field: "content" },
    );
  }
  if (content !== "" && !FIXED_TEXT.test(content.replace(PLACEHOLDER, ""))) {
    throw new GatewayError(
      "invalid_request",
      `Template content needs fixed text (letters or digits) besides its {#var#} parts: DLT rejects a template that is only variables, since any text would match it.`,
      { field: "content" },
    );
  }
  const dltTemplateId = optional(input.dltTemplateId);
  if (dltTemplateId !== null && !DLT_TEMPLATE_ID.test(dltTemplateId)) {
    throw new GatewayError("invalid_request", "A DLT template ID is 1 to 30 letters or digits (usually 19 digits).", {
      field: "dlt_template_id",
    });
  }
  const entityId = optional(input.entityId);
  const sender = optional(input.sender);
  const notes = optional(input.notes);
  refuseNul(notes, "Template notes", "notes");
  if (notes !== null && notes.length > MAX_NOTES) {
    throw new GatewayError("invalid_request", `Template notes are at most ${MAX_NOTES} characters.`, {
      field: "notes",
    });
  }
  return {
    name,
    content,
    dlt_template_id: dltTemplateId,
    entity_id: entityId === null ? null : normalizeDltEntityId(entityId),
    sender: sender === null ? null : normalizeDltHeader(sender),
    notes,
  };
}

export async function createTemplate(
  db: Db,
  clock: Clock,
  accountId: number,
  input: NewTemplateInput,
): Promise<TemplateRow> {
  const values = checkedInput(input);
  const now = clock.now().getTime();
  return db
    .insertInto("templates")
    .values({
      account_id: accountId,
      ...values,
      status: input.approve ? "approved" : "pending",
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The class of the PostgreSQL advisory lock of an account's template requests ("SWTP"); the account id is its key. */
const TEMPLATE_REQUEST_LOCK = 0x5357_5450;

/**
 * A template the account asks for (v2 POST /templates, the legacy addtemplate): created pending
 * and written to the audit log as `template.request` with who asked, in one transaction, as a
 * keyword request is. One the account asked for before (the same content, header, DLT template
 * ID and entity ID; a draft, without content, also the same name) is answered as it stands (an
 * approved or rejected one stays so, its name and notes unchanged), with no entry: nothing
 * changed, as a sender-ID request asked again is (decision 0144).
 */
export async function requestTemplate(
  store: Store,
  clock: Clock,
  accountId: number,
  actor: Actor,
  input: NewTemplateInput,
): Promise<{ row: TemplateRow; created: boolean }> {
  const values = checkedInput(input);
  return store.transaction(async (trx) => {
    // The check below is a read: two identical requests at once each saw none and made two. On
    // PostgreSQL a request first takes its account's template lock, held to its commit, so the
    // next one reads the template the first made; SQLite's write transactions are serial already.
    if (store.engine === "postgres") {
      await sql`select pg_advisory_xact_lock(cast(${TEMPLATE_REQUEST_LOCK} as integer), cast(${accountId} as integer))`.execute(
        trx,
      );
    }
    const same = (column: "sender" | "dlt_template_id" | "entity_id", value: string | null) =>
      value === null ? sql<boolean>`${sql.ref(column)} is null` : sql<boolean>`${sql.ref(column)} = ${value}`;
    let query = trx
      .selectFrom("templates")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("content", "=", values.content)
      .where(same("sender", values.sender))
      .where(same("dlt_template_id", values.dlt_template_id))
      .where(same("entity_id", values.entity_id));
    if (values.content === "") query = query.where("name", "=", values.name);
    const existing = await query.orderBy("id").executeTakeFirst();
    if (existing) return { row: existing, created: false };
    const row = await createTemplate(trx, clock, accountId, { ...input, approve: false });
    await recordChange(
      trx,
      { clock, actor },
      { action: "template.request", target: `template ${row.id}`, accountId, after: describeTemplate(row) },
    );
    return { row, created: true };
  });
}

export function assertApprovalStatus(status: string): asserts status is ApprovalStatus {
  if (!APPROVAL_STATUSES.includes(status as ApprovalStatus)) {
    throw new GatewayError("invalid_request", "Status must be pending, approved or rejected.");
  }
}

/** A template's status set by the operator; `reason` (a rejection's, shown to the account) is kept only when rejected. */
export async function setTemplateStatus(
  db: Db,
  clock: Clock,
  id: number,
  status: ApprovalStatus,
  reason: string | null = null,
): Promise<TemplateRow | undefined> {
  assertApprovalStatus(status);
  if (status === "approved") {
    const row = await db.selectFrom("templates").select("content").where("id", "=", id).executeTakeFirst();
    if (row && row.content.trim() === "") {
      throw new GatewayError("invalid_request", "A template without content (a draft) cannot be approved.");
    }
  }
  return db
    .updateTable("templates")
    .set({ status, rejection_reason: status === "rejected" ? reason : null, updated_at: clock.now().getTime() })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** One template of the account; another account's id reads as unknown. */
export async function getTemplate(db: Db, accountId: number, id: number): Promise<TemplateRow | undefined> {
  return db
    .selectFrom("templates")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

export async function listTemplates(
  db: Db,
  accountId: number,
  options: { status?: ApprovalStatus | undefined; page: number; perPage: number },
): Promise<{ rows: TemplateRow[]; total: number }> {
  const { page, perPage } = options;
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(perPage) || perPage < 1 || perPage > 1000) {
    throw new GatewayError("invalid_request", "Page starts at 1; per page is 1 to 1000.");
  }
  if (options.status !== undefined) assertApprovalStatus(options.status);
  let query = db.selectFrom("templates").where("account_id", "=", accountId);
  if (options.status !== undefined) query = query.where("status", "=", options.status);
  return pagedRows(query, (q) => q.selectAll().orderBy("id"), options);
}

/** Every approved template of the account: what content scrubbing matches against. */
export async function approvedTemplates(db: Db, accountId: number): Promise<TemplateRow[]> {
  return db
    .selectFrom("templates")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("status", "=", "approved")
    .orderBy("id")
    .execute();
}

/** The account's approved and pending templates (ids and statuses), oldest first. */
export async function openTemplates(db: Db, accountId: number) {
  return db
    .selectFrom("templates")
    .select(["id", "status"])
    .where("account_id", "=", accountId)
    .where("status", "in", ["approved", "pending"])
    .orderBy("id")
    .execute();
}

/** The templates waiting for the operator, as part of the approval queue. */
export function pendingTemplates(db: Db): PendingRequests {
  return db
    .selectFrom("templates")
    .select([sql.lit("template").as("kind"), "id", "account_id", "name as value", "content as detail", "created_at"])
    .where("status", "=", "pending");
}

export function describeTemplate(row: TemplateRow) {
  return {
    id: row.id,
    name: row.name,
    content: row.content,
    dlt_template_id: row.dlt_template_id,
    entity_id: row.entity_id,
    sender_id: row.sender,
    status: row.status,
    notes: row.notes,
    rejection_reason: row.rejection_reason,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** A template as the v2 API answers it: its times to the second, as every v2 time (docs/api.md). */
export function v2Template(row: TemplateRow) {
  return {
    ...describeTemplate(row),
    created_at: isoUtc(new Date(row.created_at)),
    updated_at: isoUtc(new Date(row.updated_at)),
  };
}
