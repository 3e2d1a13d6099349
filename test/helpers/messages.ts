// Waiting on the pipeline from a test that only has the database: polls until no message is
// left in a non-final state, or fails naming how many are.
import type { Store } from "../../src/store/store.js";

export async function waitUntilAllFinal(store: Store, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await store.db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "not in", ["delivered", "failed", "cancelled"])
      .executeTakeFirstOrThrow();
    // Bulk-job recipients the expander has not turned into messages yet are not final either.
    const parts = await store.db
      .selectFrom("bulk_parts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0 && Number(parts.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${open.n} messages still not final after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
