// The audit log (issue 42, item 4; decision 0120): `audit_log`, one hash-chained row per change
// an operator or account made, append-only (triggers refuse an UPDATE or DELETE), and
// `audit_head`, its one row holding the last entry's number and hash, which every append
// updates first: the lock that keeps concurrent writers from forking the chain. The account
// views recorded so far (0030) move into the log as `account.view` and `account.view_end`.
import { type Kysely, sql } from "kysely";
import { AUDIT_GENESIS, type AuditContent, auditHash } from "../audit-chain.js";
import type { Engine } from "../engine.js";

interface ViewRow {
  viewer_account_id: number;
  viewer: string;
  account_id: number;
  account: string;
  session_id: number;
  address: string;
  user_agent: string | null;
  started_at: number;
  ended_at: number | null;
}

export function auditLog(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("audit_log")
        .addColumn("seq", "bigint", (c) => c.primaryKey())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("actor_account_id", "bigint")
        .addColumn("actor", "text", (c) => c.notNull())
        .addColumn("actor_user", "text")
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("credential", "text")
        .addColumn("address", "text")
        .addColumn("account_id", "bigint")
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("before", "text")
        .addColumn("after", "text")
        .addColumn("prev_hash", "text", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("audit_log_by_account").on("audit_log").columns(["account_id", "seq"]).execute();
      await db.schema.createIndex("audit_log_by_actor").on("audit_log").columns(["actor_account_id", "seq"]).execute();
      await db.schema
        .createTable("audit_head")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("seq", "bigint", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull())
        .execute();

      const entries = (await viewEntries(db)).map((entry, index) => ({ ...entry, seq: index + 1 }));
      let prev = AUDIT_GENESIS;
      for (const entry of entries) {
        const row: AuditContent = { ...entry, prev_hash: prev };
        prev = auditHash(row);
        await db
          .insertInto("audit_log" as never)
          .values({ ...row, hash: prev } as never)
          .execute();
      }
      await db
        .insertInto("audit_head" as never)
        .values({ id: 1, seq: entries.length, hash: prev } as never)
        .execute();

      if (engine === "sqlite") {
        for (const event of ["update", "delete"]) {
          await sql
            .raw(
              `create trigger audit_log_no_${event} before ${event} on audit_log begin select raise(abort, 'audit_log is append-only'); end`,
            )
            .execute(db);
        }
      } else {
        await sql`create function audit_log_append_only() returns trigger language plpgsql as $$
          begin raise exception 'audit_log is append-only'; end $$`.execute(db);
        await sql`create trigger audit_log_no_change before update or delete on audit_log
          for each row execute function audit_log_append_only()`.execute(db);
        await sql`create trigger audit_log_no_truncate before truncate on audit_log
          for each statement execute function audit_log_append_only()`.execute(db);
      }
    },
  };
}

/** The views of 0030 as entries, in the order they happened (a view's end after its start). */
async function viewEntries(db: Kysely<unknown>): Promise<Omit<AuditContent, "seq" | "prev_hash">[]> {
  const views = await sql<ViewRow>`
    select v.viewer_account_id, o.username as viewer, v.account_id, a.username as account,
           v.session_id, v.address, v.user_agent, v.started_at, v.ended_at
    from account_views v
    join accounts a on a.id = v.account_id
    join accounts o on o.id = v.viewer_account_id
    order by v.id`.execute(db);
  const entries = views.rows.flatMap((view) => {
    const base = {
      actor_account_id: Number(view.viewer_account_id),
      actor: view.viewer,
      actor_user: null,
      channel: "console",
      credential: null,
      address: view.address,
      account_id: Number(view.account_id),
      target: `account ${view.account}`,
      before: null,
    };
    const session = { session_id: Number(view.session_id), user_agent: view.user_agent };
    const start = { ...base, at: Number(view.started_at), action: "account.view", after: JSON.stringify(session) };
    if (view.ended_at === null) return [start];
    const end = { ...base, at: Number(view.ended_at), action: "account.view_end", after: JSON.stringify(session) };
    return [start, end];
  });
  return entries.sort((a, b) => a.at - b.at);
}
