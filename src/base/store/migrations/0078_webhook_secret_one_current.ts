// An account has one current webhook signing secret (expires_at null): a unique partial index
// holds it. Two first sends with an email `notifyurl` at the same moment on PostgreSQL each found
// none and each made one, so the account's callbacks were signed with two secrets until a rotation
// (the code now takes a lock per account first). Where that happened, every current secret but the
// newest becomes a rotated-out one: it keeps signing for the day a rotation gives (so a receiver
// that stored it is not cut off), then stops.
import { type Kysely, sql } from "kysely";

const GRACE_MS = 24 * 60 * 60 * 1000;

export function webhookSecretOneCurrent() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const until = Date.now() + GRACE_MS;
      await sql`update webhook_secrets set expires_at = ${until}
        where expires_at is null and exists (
          select 1 from webhook_secrets newer
           where newer.account_id = webhook_secrets.account_id
             and newer.expires_at is null and newer.id > webhook_secrets.id)`.execute(db);
      await db.schema
        .createIndex("webhook_secrets_one_current")
        .on("webhook_secrets")
        .column("account_id")
        .unique()
        .where(sql.ref("expires_at"), "is", null)
        .execute();
    },
  };
}
