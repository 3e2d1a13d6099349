// The account's DLT snapshot on the send path (channels/sms/account-rules.ts, decision 0135): read
// without waiting once loaded, and dropped at once when the account's lists or templates change,
// so the next send reads them again.
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { findUnlistedLink } from "../../../src/base/core/dlt-links.js";
import { AccountRulesCache } from "../../../src/channels/sms/account-rules.js";
import {
  addDltEntity,
  addDltLink,
  createAccount,
  DLT_CHANGED,
  removeDltLink,
} from "../../../src/domain/accounts/index.js";
import { createTemplate } from "../../../src/domain/accounts/templates.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { until } from "../smpp-server/client.js";

const ENTITY = "1101160000000000135";

describeEachEngine("the account's DLT snapshot", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("is read without waiting once loaded, and read again after a change", async () => {
    const { store } = db;
    const account = await createAccount(store, systemClock, { username: "snapshot135", password: "password-1" });
    await addDltEntity(store.db, systemClock, account.id, ENTITY);
    await createTemplate(store.db, systemClock, account.id, {
      name: "otp",
      content: "Your OTP is {#var#}. See {#var#}",
      approve: true,
    });
    const owner = { id: account.id, username: "snapshot135" };
    await addDltLink(store.db, systemClock, owner, {
      kind: "url",
      entityId: ENTITY,
      value: "example.in/app",
      status: "approved",
    });
    const cache = new AccountRulesCache(store);

    expect(cache.dltSnapshotNow(account.id, "strict")).toBeUndefined();
    const loaded = await cache.dltSnapshot(account.id, "strict");
    const now = cache.dltSnapshotNow(account.id, "strict");
    expect(now?.templates).toBe(loaded.templates);
    expect(now?.links).toBe(loaded.links);
    expect(cache.dltSnapshotNow(account.id, "lenient")).toBeUndefined();
    const text = "Your OTP is 123456. See example.in/app";
    expect(now?.templates.matchWithLayout(text)?.layout).toBeDefined();
    expect(findUnlistedLink(text, now?.links.get(ENTITY))).toBeUndefined();

    await removeDltLink(store.db, owner, { kind: "url", entityId: ENTITY, value: "example.in/app" });
    await store.signals.notify(DLT_CHANGED, String(account.id));
    await until(() => cache.dltSnapshotNow(account.id, "strict") === undefined);
    const reloaded = await cache.dltSnapshot(account.id, "strict");
    expect(findUnlistedLink(text, reloaded.links.get(ENTITY))).toEqual({ kind: "url", text: "example.in/app" });
  });
});
