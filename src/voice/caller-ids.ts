// Caller numbers: the `from` of a call must be one the operator approved for the account.
// Stored in E.164, so 080 4711 0000 and +91 80 4711 0000 are the same approval. Shared by the
// operator API, the CLI and the send path.
import { requireAccount } from "../accounts/index.js";
import type { Clock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import type { Db, Store } from "../store/store.js";
import { parseCallNumber } from "./numbers.js";

export interface CallerIdView {
  id: number;
  number: string;
  account: string;
  created_at: string;
}

export interface CallerIdDeps {
  store: Store;
  clock: Clock;
}

/** A caller number an operator types: any valid number (see numbers.ts), answered in E.164. */
export function parseCallerNumber(raw: string): string {
  const parsed = parseCallNumber(String(raw));
  if (!parsed) {
    throw new GatewayError(
      "invalid_request",
      `"${String(raw).slice(0, 40)}" is not a valid phone number; write it with its country code, e.g. +918047110000.`,
      { field: "number" },
    );
  }
  return parsed.e164;
}

export async function isApprovedCaller(db: Db, accountId: number, e164: string): Promise<boolean> {
  const row = await db
    .selectFrom("voice_caller_ids")
    .select("id")
    .where("account_id", "=", accountId)
    .where("number", "=", e164)
    .executeTakeFirst();
  return row !== undefined;
}

/** Approves a caller number for the account; approving it again keeps the first approval (created: false). */
export async function approveCallerIdFor(deps: CallerIdDeps, username: string, raw: string) {
  const account = await requireAccount(deps.store.db, username);
  const number = parseCallerNumber(raw);
  const inserted = await deps.store.db
    .insertInto("voice_caller_ids")
    .values({ account_id: account.id, number, created_at: deps.clock.now().getTime() })
    .onConflict((oc) => oc.columns(["account_id", "number"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  const row = await deps.store.db
    .selectFrom("voice_caller_ids")
    .selectAll()
    .where("account_id", "=", account.id)
    .where("number", "=", number)
    .executeTakeFirstOrThrow();
  return { created: inserted !== undefined, callerId: view(row, account.username) };
}

export async function callerIdsOf(deps: CallerIdDeps, username: string): Promise<CallerIdView[]> {
  const account = await requireAccount(deps.store.db, username);
  const rows = await deps.store.db
    .selectFrom("voice_caller_ids")
    .selectAll()
    .where("account_id", "=", account.id)
    .orderBy("id")
    .execute();
  return rows.map((row) => view(row, account.username));
}

export async function removeCallerIdFor(deps: CallerIdDeps, username: string, raw: string) {
  const account = await requireAccount(deps.store.db, username);
  const number = parseCallerNumber(raw);
  const result = await deps.store.db
    .deleteFrom("voice_caller_ids")
    .where("account_id", "=", account.id)
    .where("number", "=", number)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) {
    throw new GatewayError("not_found", `The account ${account.username} has no approved caller number ${number}.`);
  }
  return { account: account.username, number, removed: true };
}

function view(row: { id: number; number: string; created_at: number }, account: string): CallerIdView {
  return {
    id: Number(row.id),
    number: row.number,
    account,
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}
