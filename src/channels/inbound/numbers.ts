// Virtual numbers (inbound numbers): the numbers handsets send SMS to, each owned by one
// account. Numbers are compared as digits, an Indian mobile as its bare 10 digits, so a
// carrier writing +91 98765 43210 and an operator writing 9876543210 mean the same number.
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import type { Db } from "../../base/store/store.js";

/** Longest number accepted (E.164 has at most 15 digits; a little room for carrier prefixes). */
export const MAX_DIGITS = 20;

/** The form numbers are stored and compared in: an Indian mobile's 10 digits, else the digits; "" when there are none. */
export function normalizePhoneNumber(raw: string): string {
  const mobile = normalizeIndianMobile(raw.trim());
  if (mobile) return mobile;
  return raw.replace(/\D/g, "");
}

/** A virtual number an operator assigns: 3 to 20 digits once normalised (short codes included). */
export function parseVirtualNumber(raw: string): string {
  const digits = normalizePhoneNumber(raw);
  if (digits.length < 3 || digits.length > MAX_DIGITS || /[^\d\s+()-]/.test(raw.trim())) {
    throw new GatewayError("invalid_request", `"${raw.slice(0, 40)}" is not a phone number (3 to 20 digits).`, {
      field: "number",
    });
  }
  return digits;
}

export interface InboundNumberView {
  id: number;
  number: string;
  created_at: string;
}

export async function findNumberOwner(db: Db, number: string): Promise<number | undefined> {
  if (number === "") return undefined;
  const row = await db
    .selectFrom("inbound_numbers")
    .select("account_id")
    .where("number", "=", number)
    .executeTakeFirst();
  return row?.account_id;
}

/**
 * Gives the number to the account. Assigning it again to the same account keeps it (created:
 * false); a number that belongs to another account is a conflict.
 */
export async function assignInboundNumber(
  db: Db,
  clock: Clock,
  accountId: number,
  raw: string,
): Promise<{ view: InboundNumberView; created: boolean }> {
  const number = parseVirtualNumber(raw);
  const inserted = await db
    .insertInto("inbound_numbers")
    .values({ account_id: accountId, number, created_at: clock.now().getTime() })
    .onConflict((oc) => oc.column("number").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { view: describeInboundNumber(inserted), created: true };
  const existing = await db.selectFrom("inbound_numbers").selectAll().where("number", "=", number).executeTakeFirst();
  if (!existing || existing.account_id !== accountId) {
    throw new GatewayError("conflict", `The number ${number} is already assigned to another account.`);
  }
  return { view: describeInboundNumber(existing), created: false };
}

/** The number assigned to the account first, undefined when it has none. */
export async function firstInboundNumber(db: Db, accountId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom("inbound_numbers")
    .select("number")
    .where("account_id", "=", accountId)
    .orderBy("id")
    .executeTakeFirst();
  return row?.number;
}

export async function listInboundNumbers(db: Db, accountId: number): Promise<InboundNumberView[]> {
  const rows = await db
    .selectFrom("inbound_numbers")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
  return rows.map(describeInboundNumber);
}

/** Takes the number away from the account; its received messages stay. False when the account did not have it. */
export async function removeInboundNumber(db: Db, accountId: number, raw: string): Promise<boolean> {
  const number = normalizePhoneNumber(raw);
  const result = await db
    .deleteFrom("inbound_numbers")
    .where("account_id", "=", accountId)
    .where("number", "=", number)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

function describeInboundNumber(row: { id: number; number: string; created_at: number }): InboundNumberView {
  return { id: row.id, number: row.number, created_at: new Date(row.created_at).toISOString() };
}
