// Stored email templates: subject, HTML and text with {{placeholders}}, filled from a send's
// `defaultplaceholders` (a JSON object). In HTML a {{value}} is HTML-escaped and a
// {{{value}}} is inserted as it is; subject and text take values as they are.
import { GatewayError } from "../../base/core/errors.js";
import { pagedRows } from "../../base/store/paging.js";
import type { EmailTemplatesTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";

export type EmailTemplateRow = Omit<EmailTemplatesTable, "id"> & { id: number };

export const MAX_TEMPLATE_HTML = 1024 * 1024;
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}\}|\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export interface EmailTemplateFields {
  name: string;
  subject: string;
  html: string;
  text?: string | null;
}

/** The audit entry's view of a template: its name and subject, and the bodies' lengths, never the bodies. */
function auditView(row: EmailTemplateRow) {
  return { name: row.name, subject: row.subject, html_length: row.html.length, text_length: row.text?.length ?? 0 };
}

const target = (id: number) => `email template ${id}`;

/** PostgreSQL text cannot hold U+0000: refused on both engines alike, naming the field. */
function refuseNul(fields: Partial<EmailTemplateFields>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === "string" && value.includes("\u0000")) {
      throw new GatewayError("invalid_request", `The template's ${field} holds a NUL character (U+0000).`, { field });
    }
  }
}

/** Stores a template with its audit entry (`email_template.create`), in one transaction. */
export async function createEmailTemplate(
  store: Store,
  who: Audited,
  accountId: number,
  fields: EmailTemplateFields,
): Promise<EmailTemplateRow> {
  refuseNul(fields);
  const now = who.clock.now().getTime();
  return store.transaction(async (trx) => {
    const row = await trx
      .insertInto("email_templates")
      .values({
        account_id: accountId,
        name: fields.name,
        subject: fields.subject,
        html: fields.html,
        text: fields.text ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordChange(trx, who, {
      action: "email_template.create",
      target: target(row.id),
      accountId,
      after: auditView(row),
    });
    return row;
  });
}

/**
 * Changes a template with its audit entry (`email_template.update`): the name and subject as they
 * were and are, a new body as `html_changed` / `text_changed`. A change to what it was writes none.
 */
export async function updateEmailTemplate(
  store: Store,
  who: Audited,
  accountId: number,
  id: number,
  fields: Partial<EmailTemplateFields>,
): Promise<EmailTemplateRow> {
  refuseNul(fields);
  return store.transaction(async (trx) => {
    const before = await getEmailTemplate(trx, accountId, id);
    if (!before) throw new GatewayError("not_found", `No email template ${id} in this account.`);
    const row = await trx
      .updateTable("email_templates")
      .set({ ...fields, updated_at: who.clock.now().getTime() })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const was: Record<string, string> = {};
    const is: Record<string, string | boolean> = {};
    for (const field of ["name", "subject"] as const) {
      if (row[field] !== before[field]) {
        was[field] = before[field];
        is[field] = row[field];
      }
    }
    if (row.html !== before.html) is.html_changed = true;
    if (row.text !== before.text) is.text_changed = true;
    if (Object.keys(is).length > 0) {
      await recordChange(trx, who, {
        action: "email_template.update",
        target: target(id),
        accountId,
        ...(Object.keys(was).length > 0 ? { before: was } : {}),
        after: is,
      });
    }
    return row;
  });
}

/** Deletes a template with its audit entry (`email_template.delete`), in one transaction. */
export async function deleteEmailTemplate(store: Store, who: Audited, accountId: number, id: number): Promise<void> {
  await store.transaction(async (trx) => {
    const row = await trx
      .deleteFrom("email_templates")
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new GatewayError("not_found", `No email template ${id} in this account.`);
    await recordChange(trx, who, {
      action: "email_template.delete",
      target: target(id),
      accountId,
      before: auditView(row),
    });
  });
}

export async function getEmailTemplate(db: Db, accountId: number, id: number): Promise<EmailTemplateRow | undefined> {
  return db
    .selectFrom("email_templates")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function listEmailTemplates(
  db: Db,
  accountId: number,
  page: { page: number; perPage: number },
): Promise<{ rows: EmailTemplateRow[]; total: number }> {
  const query = db.selectFrom("email_templates").where("account_id", "=", accountId);
  return pagedRows(query, (q) => q.selectAll().orderBy("id"), page);
}

export function describeEmailTemplate(row: EmailTemplateRow, iso: (ms: number) => string) {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    html: row.html,
    text: row.text,
    placeholders: placeholdersOf(`${row.subject}\n${row.html}\n${row.text ?? ""}`),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The placeholder names a text uses, in order of first use. */
export function placeholdersOf(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) names.add((match[1] ?? match[2]) as string);
  return [...names];
}

/** Values by name, own properties only: `{{constructor}}` is a name like any other, never Object's. */
export type Placeholders = Readonly<Record<string, string>>;

/**
 * Reads `defaultplaceholders`: a JSON object whose values are strings, numbers or booleans.
 * Throws `invalid_request` (the family answers -11) otherwise.
 */
export function parsePlaceholders(raw: string | undefined): Placeholders {
  if (raw === undefined || raw.trim() === "") return Object.create(null);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new GatewayError("invalid_request", "defaultplaceholders is not valid JSON.", {
      field: "defaultplaceholders",
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new GatewayError("invalid_request", "defaultplaceholders must be a JSON object.", {
      field: "defaultplaceholders",
    });
  }
  const out: Record<string, string> = Object.create(null);
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === "string" || typeof item === "number" || typeof item === "boolean") out[key] = String(item);
    else {
      throw new GatewayError("invalid_request", `defaultplaceholders.${key} must be a string, number or boolean.`, {
        field: "defaultplaceholders",
      });
    }
  }
  return out;
}

/** Fills a text's placeholders; unknown ones stay as written, so a missing value is visible, not blank. */
export function fill(text: string, values: Placeholders, html: boolean): string {
  return text.replace(PLACEHOLDER, (whole, raw: string | undefined, escaped: string | undefined) => {
    const name = (raw ?? escaped) as string;
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name] as string;
    return html && escaped !== undefined ? escapeHtml(value) : value;
  });
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
