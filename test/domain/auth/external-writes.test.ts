// On SQLite another process (the CLI) cannot signal a running gateway: its credential changes
// move the auth_epoch setting, which each thread reads every 200 ms, once for all of that
// thread's caches (issue 43: one read per poll, not one per cache). Every cache of the store hears
// a move, those that join later and those left when others stop listening too.
import { afterAll, beforeAll, expect, it } from "vitest";
import { moveVersion } from "../../../src/base/store/setting-versions.js";
import { listenForAuthChanges } from "../../../src/domain/auth/index.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/engines.js";
import { until } from "../webhooks/receiver.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("sqlite");
});
afterAll(async () => {
  await db.drop();
});

/** A cache that counts the times it was told to forget everything. */
function cache() {
  const heard = { all: 0 };
  return { heard, forget: (payload: string) => void (payload === "" && heard.all++) };
}

/**
 * Moves the epoch as another process does, again each time until `check` holds: the first move may
 * come before the watch's first read, which only learns the epoch as it is.
 */
function moveUntil(check: () => boolean): Promise<void> {
  return until(async () => {
    if (check()) return true;
    await moveVersion(db.store.db, "auth_epoch");
    return false;
  });
}

it("tells every cache of the store of a move of the epoch made by another process", async () => {
  const authenticator = cache();
  const held = cache();
  const stopAuthenticator = listenForAuthChanges(db.store, authenticator);
  const stopHeld = listenForAuthChanges(db.store, held);
  await moveUntil(() => authenticator.heard.all > 0);
  // One poll tells both.
  expect(held.heard.all).toBe(authenticator.heard.all);

  // A cache that joins later hears the next move; one that stopped listening does not.
  const late = cache();
  const stopLate = listenForAuthChanges(db.store, late);
  stopAuthenticator();
  const before = { authenticator: authenticator.heard.all, held: held.heard.all };
  await moveUntil(() => late.heard.all > 0);
  expect(held.heard.all).toBeGreaterThan(before.held);
  expect(authenticator.heard.all).toBe(before.authenticator);

  stopHeld();
  const heldBefore = held.heard.all;
  const lateBefore = late.heard.all;
  await moveUntil(() => late.heard.all > lateBefore);
  expect(held.heard.all).toBe(heldBefore);
  stopLate();
});
