// The customer service window: free text and media may go to a customer only within 24 hours
// of that customer's last message to the account. Templates need no window.
import type { Db } from "../../base/store/store.js";

export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Inside the transaction that stored the customer's message: the window runs from its time. */
export async function recordCustomerMessage(trx: Db, accountId: number, waId: string, at: number): Promise<void> {
  await trx
    .insertInto("whatsapp_sessions")
    .values({ account_id: accountId, wa_id: waId, last_inbound_at: at })
    .onConflict((oc) =>
      oc
        .columns(["account_id", "wa_id"])
        .doUpdateSet({ last_inbound_at: (eb) => eb.ref("excluded.last_inbound_at") })
        // An older message arriving late does not shorten the window.
        .where("whatsapp_sessions.last_inbound_at", "<", (eb) => eb.ref("excluded.last_inbound_at")),
    )
    .execute();
}

/** Until when (epoch ms) the account may send free text or media to the customer; undefined when never opened. */
export async function windowClosesAt(db: Db, accountId: number, waId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("whatsapp_sessions")
    .select("last_inbound_at")
    .where("account_id", "=", accountId)
    .where("wa_id", "=", waId)
    .executeTakeFirst();
  return row === undefined ? undefined : row.last_inbound_at + WINDOW_MS;
}
