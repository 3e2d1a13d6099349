// Waiting on the pipeline from a test that only has the database: polls until no message is
// left in a non-final state, or fails naming how many are.
import type { Store } from "../../src/base/store/store.js";

export async function waitUntilAllFinal(store: Store, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Bulk-job recipients the expander has not turned into messages yet are not final either.
    // Parts first: a part stops being pending in the transaction that inserts its messages, so
    // read after it the messages count includes them (read the other way round, an expansion
    // committed between the two reads was missed and the wait returned with messages queued).
    const parts = await store.db
      .selectFrom("bulk_parts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    const open = await store.db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "not in", ["delivered", "failed", "cancelled"])
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0 && Number(parts.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${open.n} messages still not final after ${timeoutMs} ms`);
    // Two counts a look: every 50 ms costs little, and the wait ends within 50 ms of the last report.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
