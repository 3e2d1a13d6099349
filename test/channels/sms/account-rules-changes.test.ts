// An account's switches changed through one process reach the send path's cached rules
// (channels/sms/account-rules.ts) of another at once, not after the cache's 2 s: on PostgreSQL a
// second store on the same database (another api process), on SQLite the same store (its
// processes are one `start`, whose parts share the store's signals).
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { AccountRulesCache } from "../../../src/channels/sms/account-rules.js";
import { createAccount, updateAccount } from "../../../src/domain/accounts/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { until } from "../smpp-server/client.js";

/** Well under the cache's TTL (2 s): a change seen this soon came by the signal. */
const AT_ONCE_MS = 700;

describeEachEngine("an account's switches changed through another process", (engine) => {
  let db: TestDatabase;
  let other: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    other = engine === "postgres" ? await openStore(db.target, { pgSchema: db.schema! }) : db.store;
  });
  afterAll(async () => {
    if (other !== db.store) await other.close();
    await db.drop();
  });

  it("apply to the other process's sends at once: routes, flood limit, international, DLT scrubbing, promo sender", async () => {
    const account = await createAccount(db.store, systemClock, { username: "rules-signal", password: "password-1" });
    const cache = new AccountRulesCache(other);
    const before = await cache.rulesFor(account.id);
    expect([...before.routes]).toEqual(["T", "P"]);
    const changes = [
      { change: { routes: ["P"] }, seen: (r: typeof before) => r.routes.size === 1 && r.routes.has("P") },
      { change: { floodLimit: 7 }, seen: (r: typeof before) => r.floodLimit === 7 },
      {
        change: { internationalEnabled: !before.internationalEnabled },
        seen: (r: typeof before) => r.internationalEnabled !== before.internationalEnabled,
      },
      {
        change: { dltScrubbing: !before.dltScrubbing },
        seen: (r: typeof before) => r.dltScrubbing !== before.dltScrubbing,
      },
      {
        change: { promoSenderEnabled: !before.promoSenderEnabled },
        seen: (r: typeof before) => r.promoSenderEnabled !== before.promoSenderEnabled,
      },
    ];
    for (const { change, seen } of changes) {
      // Freshly cached in the other process, then changed through this one.
      await cache.rulesFor(account.id);
      await updateAccount(db.store, systemClock, account.username, change);
      await until(async () => seen(await cache.rulesFor(account.id)), AT_ONCE_MS, JSON.stringify(change));
    }
  });
});
