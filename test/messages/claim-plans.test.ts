// The PostgreSQL claim under statistics that no longer describe the table: messages analyzed
// while empty (a fresh install, or autovacuum off and the first look at a quiet gateway), then
// thousands queued. Written `id in (select … limit n for update skip locked)`, PostgreSQL planned
// a semi-join that ran the locking sub-select again for every queued row: each claim took time
// quadratic in the queue and locked, dispatched and returned ten times its limit. Claims must
// stay within their limit, each message claimed once, oldest first, whatever the statistics.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey } from "../../src/admin/index.js";
import { systemClock } from "../../src/core/clock.js";
import { claimDueMessages } from "../../src/messages/index.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../helpers/engines.js";
import { messageRow } from "../helpers/message-row.js";

const QUEUED = 3_000;
const LIMIT = 200;

(postgresAvailable ? describe : describe.skip)("claims with stale statistics [postgres]", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock },
      { username: "claims", password: "claims-password", credits: { sms: 100 } },
    );
    // Statistics taken when every message was delivered: "queued" is a value they never saw.
    const delivered = Array.from({ length: QUEUED }, (_, i) =>
      messageRow({ account_id: account.id, id: `d${String(i).padStart(8, "0")}`, status: "delivered" }),
    );
    await db.store.transaction((trx) => db.store.insertMany(trx, "messages", delivered));
    await sql`analyze messages`.execute(db.store.db);
    const queued = Array.from({ length: QUEUED }, (_, i) =>
      messageRow({
        account_id: account.id,
        id: `q${String(i).padStart(8, "0")}`,
        due_at: 1_000 + i,
        created_at: 1_000 + i,
        attempts: 0,
      }),
    );
    await db.store.transaction((trx) => db.store.insertMany(trx, "messages", queued));
  });
  afterAll(() => db?.drop());

  it("claims at most its limit, oldest first, each message once", async () => {
    const seen = new Set<string>();
    for (let round = 0; round < QUEUED / LIMIT; round++) {
      const claimed = await claimDueMessages(db.store, 10_000_000, LIMIT, 15_000);
      expect(claimed.length).toBe(LIMIT);
      expect(claimed.map((m) => m.due_at)).toEqual(Array.from({ length: LIMIT }, (_, i) => 1_000 + round * LIMIT + i));
      for (const message of claimed) {
        expect(seen.has(message.id)).toBe(false);
        seen.add(message.id);
        expect(message.status).toBe("dispatching");
        expect(message.attempts).toBe(1);
      }
    }
    expect(seen.size).toBe(QUEUED);
    expect(await claimDueMessages(db.store, 10_000_000, LIMIT, 15_000)).toEqual([]);
  });
});
