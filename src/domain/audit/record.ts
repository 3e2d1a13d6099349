// Appends an entry to the audit log inside the transaction of the change it records, so the
// change and its entry are committed together or not at all. The append first moves the chain's
// head (audit_head's one row) on by one: on PostgreSQL that UPDATE holds the row's lock until
// COMMIT, on SQLite the transaction already holds the write lock (BEGIN IMMEDIATE), so two
// writers never take the same place in the chain.
import type { Clock } from "../../base/core/clock.js";
import { auditHash, canonicalJson } from "../../base/store/audit-chain.js";
import type { Db } from "../../base/store/store.js";
import type { Actor } from "./actor.js";

export interface Change {
  /** `<thing>.<verb>`: `credits.topup`, `template.approve`, `carrier.save`. */
  action: string;
  /** What it was done to, in words: `template 12`, `carrier smsc1`, `wallet sms of acme`. */
  target: string;
  /** The account the change concerns (its own log shows it); null for the gateway's own things. */
  accountId: number | null;
  /** The thing before the change (left out when it was created). */
  before?: unknown;
  /** The thing after the change (left out when it was removed). */
  after?: unknown;
}

/** What an audited action takes besides its store: the clock, and who is acting. */
export interface Audited {
  clock: Clock;
  actor: Actor;
}

const asJson = (value: unknown) => (value === undefined || value === null ? null : canonicalJson(value));

/** Records `change` by `who.actor` in `trx`, the transaction that makes the change. */
export async function recordChange(trx: Db, who: Audited, change: Change): Promise<void> {
  const head = await trx
    .updateTable("audit_head")
    .set((eb) => ({ seq: eb("seq", "+", 1) }))
    .where("id", "=", 1)
    .returning(["seq", "hash"])
    .executeTakeFirstOrThrow();
  const { actor } = who;
  const content = {
    seq: Number(head.seq),
    at: who.clock.now().getTime(),
    actor_account_id: actor.accountId,
    actor: actor.username,
    actor_user: actor.user ?? null,
    channel: actor.channel,
    credential: actor.credential,
    address: actor.address,
    account_id: change.accountId,
    action: change.action,
    target: change.target,
    before: asJson(change.before),
    after: asJson(change.after),
    prev_hash: head.hash,
  };
  const hash = auditHash(content);
  await trx
    .insertInto("audit_log")
    .values({ ...content, hash })
    .execute();
  await trx.updateTable("audit_head").set({ hash }).where("id", "=", 1).execute();
}
