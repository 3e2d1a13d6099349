// Stored email templates: subject, HTML and text with {{placeholders}}, filled from a send's
// `defaultplaceholders` (a JSON object). In HTML a {{value}} is HTML-escaped and a
// {{{value}}} is inserted as it is; subject and text take values as they are.
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { pagedRows } from "../../base/store/paging.js";
import type { EmailTemplatesTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

export type EmailTemplateRow = Omit<EmailTemplatesTable, "id"> & { id: number };

export const MAX_TEMPLATE_HTML = 1024 * 1024;
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}\}|\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export interface EmailTemplateFields {
  name: string;
  subject: string;
  html: string;
  text?: string | null;
}

export async function createEmailTemplate(
  db: Db,
  clock: Clock,
  accountId: number,
  fields: EmailTemplateFields,
): Promise<EmailTemplateRow> {
  const now = clock.now().getTime();
  return db
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
}

export async function updateEmailTemplate(
  db: Db,
  clock: Clock,
  accountId: number,
  id: number,
  fields: Partial<EmailTemplateFields>,
): Promise<EmailTemplateRow> {
  const row = await db
    .updateTable("email_templates")
    .set({ ...fields, updated_at: clock.now().getTime() })
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new GatewayError("not_found", `No email template ${id} in this account.`);
  return row;
}

export async function deleteEmailTemplate(db: Db, accountId: number, id: number): Promise<void> {
  const result = await db
    .deleteFrom("email_templates")
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0)
    throw new GatewayError("not_found", `No email template ${id} in this account.`);
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
