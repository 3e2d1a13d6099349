// Keywords: the first word of an inbound SMS that an account reacts to. An account creates one
// (pending); the operator approves it, because a `static` keyword makes the gateway send its
// reply text to anyone who texts the word, and that text is not DLT-scrubbed.
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { segmentInfo } from "../../base/core/segments.js";
import { pagedRows } from "../../base/store/paging.js";
import type { ApprovalStatus, KeywordRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { PendingRequests } from "../../domain/accounts/index.js";

/** `static` replies with `static_message`; `none` only records the messages it matches. */
export const RESPONSE_TYPES = ["static", "none"] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];
export const MAX_KEY_LENGTH = 30;
/** A reply is an SMS like any other: at most as long as a send may be. */
export const MAX_REPLY_SEGMENTS = 10;
/** The whole message START takes the sender off the suppression list again. */
export const OPT_IN_WORD = "START";
const KEY = /^[A-Za-z0-9]+$/;
const NUL = "\u0000";

export interface NewKeywordInput {
  key: string;
  responseType: string;
  staticMessage?: string | null | undefined;
}

/** The first word of a message, upper-case, without punctuation around it ("info, please" → INFO). */
export function firstWord(message: string): string {
  const word = message.trim().split(/\s+/, 1)[0] ?? "";
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").toUpperCase();
}

/** True when the message is the single word START (surrounding punctuation aside). */
export function isOptIn(message: string): boolean {
  const words = message.trim().split(/\s+/);
  return words.length === 1 && firstWord(message) === OPT_IN_WORD;
}

function checkedKeyword(input: NewKeywordInput, reserved: ReadonlySet<string>) {
  const key = input.key.trim();
  if (key === "") throw invalid("key", "A keyword is one word of 1 to 30 letters or digits; the key is empty.");
  if (/\s/.test(key)) throw invalid("key", `A keyword is one word; "${key.slice(0, 40)}" has several.`);
  if (!KEY.test(key)) throw invalid("key", "A keyword has only letters A-Z and digits 0-9.");
  if (key.length > MAX_KEY_LENGTH) throw invalid("key", `A keyword is at most ${MAX_KEY_LENGTH} characters.`);
  const upper = key.toUpperCase();
  if (reserved.has(upper) || upper === OPT_IN_WORD) {
    throw invalid("key", `${upper} is reserved for opt-out and opt-in (${[...reserved, OPT_IN_WORD].join(", ")}).`);
  }
  if (!(RESPONSE_TYPES as readonly string[]).includes(input.responseType)) {
    throw invalid("response_type", `response_type must be ${RESPONSE_TYPES.join(" or ")}.`);
  }
  const responseType = input.responseType as ResponseType;
  const staticMessage = input.staticMessage ?? null;
  if (responseType === "static") {
    if (staticMessage === null || staticMessage.trim() === "") {
      throw invalid("static_message", "A static keyword needs static_message, the reply text.");
    }
    if (staticMessage.includes(NUL)) throw invalid("static_message", "static_message cannot contain U+0000.");
    const { segments } = segmentInfo(staticMessage);
    if (segments > MAX_REPLY_SEGMENTS) {
      throw invalid(
        "static_message",
        `static_message needs ${segments} SMS parts; at most ${MAX_REPLY_SEGMENTS} are allowed.`,
      );
    }
  } else if (staticMessage !== null) {
    throw invalid("static_message", "static_message is only for response_type static.");
  }
  return { key: upper, response_type: responseType, static_message: staticMessage };
}

function invalid(field: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { field });
}

/** Creates a pending keyword; 409 when the account has the key already (in any state). */
export async function createKeyword(
  db: Db,
  clock: Clock,
  accountId: number,
  input: NewKeywordInput,
  reserved: ReadonlySet<string>,
): Promise<KeywordRow> {
  const values = checkedKeyword(input, reserved);
  const now = clock.now().getTime();
  const row = await db
    .insertInto("keywords")
    .values({ account_id: accountId, ...values, status: "pending", created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(["account_id", "key"]).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new GatewayError("conflict", `The account has the keyword ${values.key} already.`);
  return row;
}

/** One keyword of the account; another account's id reads as unknown. */
export async function getKeyword(db: Db, accountId: number, id: number): Promise<KeywordRow | undefined> {
  return db
    .selectFrom("keywords")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

export async function listKeywords(
  db: Db,
  accountId: number,
  options: { status?: ApprovalStatus | undefined; page: number; perPage: number },
): Promise<{ rows: KeywordRow[]; total: number }> {
  let query = db.selectFrom("keywords").where("account_id", "=", accountId);
  if (options.status !== undefined) query = query.where("status", "=", options.status);
  return pagedRows(query, (q) => q.selectAll().orderBy("id"), options);
}

/** The keywords waiting for the operator, as part of the approval queue (admin/approvals.ts). */
export function pendingKeywords(db: Db): PendingRequests {
  return db
    .selectFrom("keywords")
    .select([
      sql.lit("keyword").as("kind"),
      "id",
      "account_id",
      "key as value",
      "static_message as detail",
      "created_at",
    ])
    .where("status", "=", "pending");
}

/** A keyword's status set by the operator; `reason` (a rejection's, shown to the account) is kept only when rejected. */
export async function setKeywordStatus(
  db: Db,
  clock: Clock,
  id: number,
  status: ApprovalStatus,
  reason: string | null = null,
): Promise<KeywordRow | undefined> {
  return db
    .updateTable("keywords")
    .set({ status, rejection_reason: status === "rejected" ? reason : null, updated_at: clock.now().getTime() })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** The account's approved keyword for this (upper-case) word, if any. */
export async function approvedKeyword(db: Db, accountId: number, word: string): Promise<KeywordRow | undefined> {
  if (word === "" || word.length > MAX_KEY_LENGTH) return undefined;
  return db
    .selectFrom("keywords")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("key", "=", word)
    .where("status", "=", "approved")
    .executeTakeFirst();
}

export function describeKeyword(row: KeywordRow, time: (ms: number) => string) {
  return {
    id: row.id,
    key: row.key,
    response_type: row.response_type,
    static_message: row.static_message,
    status: row.status,
    rejection_reason: row.rejection_reason,
    created_at: time(row.created_at),
    updated_at: time(row.updated_at),
  };
}
