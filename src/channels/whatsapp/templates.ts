// WhatsApp templates: synced from the connected business account, stored per account, and
// judged sendable or not (with the reason) by what this API can fill in: ordered body
// params, one header (text variable or media), and the code button of authentication templates.
import type { Clock } from "../../base/core/clock.js";
import type { WhatsAppTemplatesTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";
import type { GraphComponent, GraphTemplate } from "./graph.js";

export type WhatsAppTemplateRow = Omit<WhatsAppTemplatesTable, "id"> & { id: number };

/**
 * Approved, or approved once and stopped by WhatsApp since: what the operator's listing shows,
 * and the translations a send without a language picks from. Only APPROVED can be sent.
 */
export const ONCE_APPROVED = ["APPROVED", "PAUSED", "DISABLED"] as const;
export const MEDIA_HEADERS = ["IMAGE", "VIDEO", "DOCUMENT"] as const;

const POSITIONAL = /\{\{\s*(\d+)\s*\}\}/g;
const ANY_VARIABLE = /\{\{\s*([^}]*?)\s*\}\}/g;

/** What a template needs from a send, read off its components. */
export interface TemplateShape {
  body: string;
  paramCount: number;
  /** NONE, TEXT, IMAGE, VIDEO, DOCUMENT or LOCATION. */
  headerFormat: string;
  headerParamCount: number;
  /** Index of a button whose variable is the code (authentication templates): filled with params[0]. */
  codeButtonIndex: number | undefined;
  /** Why this API cannot send it, whatever its status. */
  unsupported: string | undefined;
}

function variables(text: string): { positional: Set<number>; named: string[] } {
  const positional = new Set<number>();
  const named: string[] = [];
  for (const match of text.matchAll(ANY_VARIABLE)) {
    const inner = match[1] ?? "";
    if (/^\d+$/.test(inner)) positional.add(Number(inner));
    else named.push(inner);
  }
  return { positional, named };
}

export function shapeOf(template: Pick<GraphTemplate, "category" | "components">): TemplateShape {
  const components: GraphComponent[] = Array.isArray(template.components) ? template.components : [];
  const find = (type: string) => components.find((c) => c.type?.toUpperCase() === type);
  const body = find("BODY")?.text ?? "";
  const header = find("HEADER");
  const headerFormat = header ? (header.format ?? "TEXT").toUpperCase() : "NONE";
  const bodyVars = variables(body);
  const headerVars = variables(headerFormat === "TEXT" ? (header?.text ?? "") : "");
  let unsupported: string | undefined;
  if (bodyVars.named.length > 0 || headerVars.named.length > 0) {
    unsupported = "It uses named variables; this API fills {{1}}, {{2}} ... in order.";
  } else if (headerFormat === "LOCATION") {
    unsupported = "Its header is a location, which this API cannot fill.";
  } else if (headerVars.positional.size > 1) {
    unsupported = "Its header has more than one variable; header_params takes a single value.";
  }
  let codeButtonIndex: number | undefined;
  const buttons = find("BUTTONS")?.buttons ?? [];
  const authentication = template.category?.toUpperCase() === "AUTHENTICATION";
  buttons.forEach((button, index) => {
    const type = button.type?.toUpperCase();
    const dynamic = type === "OTP" || (type === "URL" && POSITIONAL.test(button.url ?? ""));
    POSITIONAL.lastIndex = 0;
    if (!dynamic) {
      if (type === "COPY_CODE" || type === "CATALOG" || type === "MPM") {
        unsupported ??= `Its ${type.toLowerCase()} button needs a value this API cannot give.`;
      }
      return;
    }
    if (authentication) codeButtonIndex ??= index;
    else unsupported ??= "It has a URL button with a variable, which this API cannot fill.";
  });
  if (components.some((c) => ["CAROUSEL", "LIMITED_TIME_OFFER"].includes(c.type?.toUpperCase()))) {
    unsupported ??= "Carousel and limited-time-offer templates cannot be sent through this API.";
  }
  if (bodyVars.positional.size > 0) {
    const max = Math.max(...bodyVars.positional);
    if (max !== bodyVars.positional.size) unsupported ??= "Its body variables are not numbered {{1}} to {{n}}.";
  }
  return {
    body,
    paramCount: bodyVars.positional.size,
    headerFormat,
    headerParamCount: headerVars.positional.size,
    codeButtonIndex,
    unsupported,
  };
}

export interface Sendability {
  sendable: boolean;
  testOnly: boolean;
  reason: string | null;
  /** What a send must give it (read off the stored components once). */
  shape: TemplateShape;
}

/** Whether the template can be sent from the account's current sender, and why not. */
export function sendabilityOf(row: WhatsAppTemplateRow, sandbox: boolean): Sendability {
  const testOnly = sandbox || row.test_only === 1;
  const shape = shapeOf({ category: row.category, components: JSON.parse(row.components) as GraphComponent[] });
  const reason = notApprovedReason(row.status, row.reason) ?? shape.unsupported ?? null;
  return { sendable: reason === null, testOnly, reason, shape };
}

/**
 * Why a template of this status cannot be sent; undefined when it is approved. `rejectedReason` is
 * WhatsApp's own word for a rejection (INVALID_FORMAT, TAG_CONTENT_MISMATCH, …), when it gave one.
 */
export function notApprovedReason(status: string, rejectedReason?: string | null): string | undefined {
  if (status === "APPROVED") return undefined;
  if (status === "PAUSED") {
    return "Paused by WhatsApp after low-quality feedback; it cannot be sent until WhatsApp resumes it.";
  }
  if (status === "DISABLED") return "Disabled by WhatsApp for low quality; it can no longer be sent.";
  if (status === "PENDING" || status === "IN_APPEAL") {
    return "Waiting for WhatsApp's review; it can be sent once WhatsApp approves it.";
  }
  if (status === "REJECTED") {
    const why = rejectedReason ? ` (${rejectedReason})` : "";
    return `Rejected by WhatsApp${why}; edit it in the business account and submit it again.`;
  }
  return `Not approved (status ${status}).`;
}

export function describeTemplate(row: WhatsAppTemplateRow, sandbox: boolean) {
  const sendability = sendabilityOf(row, sandbox);
  return {
    name: row.name,
    category: row.category,
    language: row.language,
    status: row.status.toLowerCase(),
    body: row.body,
    param_count: row.param_count,
    header_format: row.header_format.toLowerCase(),
    header_param_count: row.header_param_count,
    is_sendable: sendability.sendable,
    is_test_only: sendability.testOnly,
    send_disabled_reason: sendability.reason,
  };
}

/** The account's stored templates of these statuses (every status when none are named), by name and language. */
export async function listedTemplates(
  db: Db,
  accountId: number,
  statuses?: readonly string[],
): Promise<WhatsAppTemplateRow[]> {
  let query = db.selectFrom("whatsapp_templates").selectAll().where("account_id", "=", accountId);
  if (statuses) query = query.where("status", "in", [...statuses]);
  return query.orderBy("name").orderBy("language").execute();
}

/** Every stored translation of a template name (any status). */
export async function templatesNamed(db: Db, accountId: number, name: string): Promise<WhatsAppTemplateRow[]> {
  return db
    .selectFrom("whatsapp_templates")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("name", "=", name)
    .orderBy("id")
    .execute();
}

/**
 * Replaces the account's stored templates with the business account's list, in one
 * transaction; the operator's test-only marks survive. Returns the sync time.
 */
export async function storeSyncedTemplates(
  store: Store,
  clock: Clock,
  accountId: number,
  templates: readonly GraphTemplate[],
): Promise<number> {
  return store.transaction(async (trx) => {
    const previous = await trx
      .selectFrom("whatsapp_accounts")
      .select("templates_synced_at")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    // Strictly later than the last sync, so the rows it wrote are told apart even on a stopped clock.
    const now = Math.max(clock.now().getTime(), (previous?.templates_synced_at ?? 0) + 1);
    const seen = new Set<string>();
    for (const template of templates) {
      if (typeof template.name !== "string" || typeof template.language !== "string") continue;
      const key = `${template.name}\u0000${template.language}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const shape = shapeOf(template);
      const values = {
        upstream_id: template.id ?? null,
        category: String(template.category ?? "UTILITY").toUpperCase(),
        status: String(template.status ?? "PENDING").toUpperCase(),
        body: shape.body,
        param_count: shape.paramCount,
        header_format: shape.headerFormat,
        header_param_count: shape.headerParamCount,
        components: JSON.stringify(template.components ?? []),
        reason: template.rejected_reason && template.rejected_reason !== "NONE" ? template.rejected_reason : null,
        synced_at: now,
      };
      await trx
        .insertInto("whatsapp_templates")
        .values({ account_id: accountId, name: template.name, language: template.language, test_only: 0, ...values })
        .onConflict((oc) => oc.columns(["account_id", "name", "language"]).doUpdateSet(values))
        .execute();
    }
    await trx
      .deleteFrom("whatsapp_templates")
      .where("account_id", "=", accountId)
      .where("synced_at", "<", now)
      .execute();
    await trx
      .updateTable("whatsapp_accounts")
      .set({ templates_synced_at: now })
      .where("account_id", "=", accountId)
      .execute();
    return now;
  });
}

/** A template status change Meta reported (approved, paused, disabled, ...). Returns whether a row changed. */
export async function applyTemplateStatus(
  db: Db,
  accountId: number,
  change: { name: string; language: string; event: string; reason?: string | undefined },
): Promise<boolean> {
  const event = change.event.toUpperCase();
  const reason = change.reason && change.reason !== "NONE" ? change.reason : null;
  // FLAGGED warns of falling quality; the template stays sendable until WhatsApp pauses it.
  const set = event === "FLAGGED" ? { reason } : { status: event === "REINSTATED" ? "APPROVED" : event, reason };
  const result = await db
    .updateTable("whatsapp_templates")
    .set(set)
    .where("account_id", "=", accountId)
    .where("name", "=", change.name)
    .where("language", "=", change.language)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The operator's mark: only the account's test numbers may receive this template. */
export async function setTemplateTestOnly(db: Db, accountId: number, name: string, testOnly: boolean): Promise<number> {
  const result = await db
    .updateTable("whatsapp_templates")
    .set({ test_only: testOnly ? 1 : 0 })
    .where("account_id", "=", accountId)
    .where("name", "=", name)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The operator's mark (PUT …/whatsapp/templates/{name}), audited in the same transaction as
 * `whatsapp_template.test_only` when a language's mark changed. Answers the languages of the name.
 */
export async function setTemplateTestOnlyFor(
  store: Store,
  who: Audited,
  account: { id: number; username: string },
  name: string,
  testOnly: boolean,
): Promise<number> {
  return store.transaction(async (trx) => {
    const marks = await trx
      .selectFrom("whatsapp_templates")
      .select("test_only")
      .where("account_id", "=", account.id)
      .where("name", "=", name)
      .execute();
    const languages = await setTemplateTestOnly(trx, account.id, name, testOnly);
    const changed = marks.filter((row) => (row.test_only === 1) !== testOnly).length;
    if (changed > 0) {
      await recordChange(trx, who, {
        action: "whatsapp_template.test_only",
        target: `WhatsApp template ${name} of ${account.username}`,
        accountId: account.id,
        before: { test_only: !testOnly, languages: changed },
        after: { test_only: testOnly, languages: changed },
      });
    }
    return languages;
  });
}
