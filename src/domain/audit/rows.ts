// Reading the audit log: the newest-first page both lists and the CLI read (a cursor of the
// entry's number), every matching entry oldest first for an export, and a row as answers show it.
import { type Selectable, sql } from "kysely";
import { isoUtc } from "../../base/core/clock.js";
import { auditContent, canonicalJson } from "../../base/store/audit-chain.js";
import type { AuditLogTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

export interface AuditFilter {
  /** The entries of one account: those that concern it and those it made. */
  accountId?: number;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  /** An action (`template.approve`), or a thing (`template`) for all of its actions. */
  action?: string;
  /** The acting account's username, or `cli`. */
  actor?: string;
  /** The login that acted (a staff member, a team user, the owner login), any case (decision 0126). */
  actorUser?: string;
  /** With actorUser: the accounts whose logins the reader reads; another account's never match. */
  namedActors?: number[];
  /** How the change came in, as the entries name it: `key:12` (an API key), `session:<id>`, `user@host` (the CLI). */
  credential?: string;
  /** Part of the target's words (`template 12`, `acme`). */
  target?: string;
}

type AuditRow = Selectable<AuditLogTable>;

const likeText = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function filtered(db: Db, filter: AuditFilter) {
  let query = db.selectFrom("audit_log").selectAll();
  const { accountId } = filter;
  if (accountId !== undefined) {
    query = query.where((eb) => eb.or([eb("account_id", "=", accountId), eb("actor_account_id", "=", accountId)]));
  }
  if (filter.from !== undefined) query = query.where("at", ">=", filter.from);
  if (filter.to !== undefined) query = query.where("at", "<", filter.to);
  const { action } = filter;
  if (action !== undefined) {
    query = action.includes(".")
      ? query.where("action", "=", action)
      : query.where((eb) =>
          eb.or([
            eb("action", "=", action),
            sql<boolean>`${eb.ref("action")} like ${`${likeText(action)}.%`} escape '\\'`,
          ]),
        );
  }
  const { actor } = filter;
  if (actor !== undefined) query = query.where((eb) => eb(eb.fn("lower", [eb.ref("actor")]), "=", actor.toLowerCase()));
  const { actorUser } = filter;
  if (actorUser !== undefined) {
    query = query.where((eb) => eb(eb.fn("lower", [eb.ref("actor_user")]), "=", actorUser.toLowerCase()));
    const named = filter.namedActors;
    if (named !== undefined) query = query.where("actor_account_id", "in", named);
  }
  if (filter.credential !== undefined) query = query.where("credential", "=", filter.credential);
  if (filter.target !== undefined) {
    const words = `%${likeText(filter.target.toLowerCase())}%`;
    query = query.where((eb) => sql<boolean>`lower(${eb.ref("target")}) like ${words} escape '\\'`);
  }
  return query;
}

/** Up to `limit` entries the filter matches, newest first, before the entry `before` (a cursor), and the next cursor. */
export async function listAudit(db: Db, filter: AuditFilter, limit: number, before?: number) {
  let query = filtered(db, filter);
  if (before !== undefined) query = query.where("seq", "<", before);
  const rows = await query
    .orderBy("seq", "desc")
    .limit(limit + 1)
    .execute();
  if (rows.length > limit) return { rows: rows.slice(0, limit), next: Number(rows[limit - 1]!.seq) };
  return { rows, next: undefined };
}

/** Every entry the filter matches, oldest first, read a page at a time (an export). */
export async function* eachAuditEntry(db: Db, filter: AuditFilter, pageSize = 1000): AsyncGenerator<AuditRow> {
  let after = 0;
  for (;;) {
    const rows = await filtered(db, filter).where("seq", ">", after).orderBy("seq").limit(pageSize).execute();
    yield* rows;
    if (rows.length < pageSize) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

const parsed = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

/** An entry as the lists and exports show it; `account` is the username of the account it concerns. */
export function describeAuditEntry(row: AuditRow, account: string | null) {
  return {
    seq: Number(row.seq),
    at: isoUtc(new Date(Number(row.at))),
    actor: row.actor,
    actor_user: row.actor_user,
    channel: row.channel,
    credential: row.credential,
    address: row.address,
    account,
    action: row.action,
    target: row.target,
    before: parsed(row.before),
    after: parsed(row.after),
    hash: row.hash,
  };
}

/**
 * What an operator's export adds to an entry so that it can be checked without the database
 * (checkAuditExport): the previous entry's hash and the text the entry's hash covers.
 */
export function hashedFields(row: AuditRow): { prev_hash: string; hashed: string } {
  return { prev_hash: row.prev_hash, hashed: canonicalJson(auditContent(row)) };
}

/** A cursor: the last entry's number of a page, opaque to the caller. */
export function encodeAuditCursor(seq: number): string {
  return Buffer.from(`a1:${seq}`, "utf8").toString("base64url");
}

export function decodeAuditCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(cursor)) return undefined;
  const match = /^a1:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match ? Number(match[1]) : undefined;
}
