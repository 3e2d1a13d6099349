// Console sign-ins (issue 19): one row per browser session. The cookie carries a random token;
// only its SHA-256 is stored, so a copy of the database cannot be used to sign in.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function consoleSessions(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "console_sessions")
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
        .addColumn("csrf_token", "text", (c) => c.notNull())
        .addColumn("credential_stamp", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("user_agent", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("last_seen_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("console_sessions_account").on("console_sessions").column("account_id").execute();
      await db.schema.createIndex("console_sessions_expiry").on("console_sessions").column("expires_at").execute();
    },
  };
}
